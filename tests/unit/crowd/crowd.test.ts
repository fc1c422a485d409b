import { PerspectiveCamera } from 'three';
import type { NodeMaterial } from 'three/webgpu';
import { beforeAll, describe, expect, it } from 'vitest';
import { bakedFrame } from '../../../src/crowd/baked-layout.ts';
import { Crowd, type CrowdAgent } from '../../../src/crowd/crowd.ts';
import { ANIM_FLOATS, AnimField, POSE_FLOATS, recordClipFrame, recordWeight } from '../../../src/crowd/instance-layout.ts';
import { RemoteAvatars } from '../../../src/crowd/remote-avatars.ts';
import { CrowdTemplate } from '../../../src/crowd/template.ts';
import { FLOATS_PER_BONE, VirtualSkeleton } from '../../../src/crowd/virtual-skeleton.ts';
import { createHumanoid } from '../../../src/rig/humanoid.ts';

let template: CrowdTemplate;
beforeAll(() => {
  template = new CrowdTemplate(createHumanoid({ detail: 'low' }), { name: 'mannequin' });
});

/** A camera at the origin looking down −Z. */
function camera(z = 0): PerspectiveCamera {
  const cam = new PerspectiveCamera(60, 1.5, 0.1, 2000);
  cam.position.set(0, 1.6, z);
  cam.lookAt(0, 1.6, z - 10);
  cam.updateMatrixWorld();
  return cam;
}

/** The drawn animation record of an agent (found by its pose record), or null when it is not drawn. */
function recordOf(crowd: Crowd, agent: CrowdAgent): Float32Array | null {
  const poses = crowd.renderer.poses;
  for (let k = 0; k < crowd.renderer.drawCount; k++) {
    if (poses[k * POSE_FLOATS] === Math.fround(agent.x) && poses[k * POSE_FLOATS + 2] === Math.fround(agent.z))
      return crowd.renderer.anims.subarray(k * ANIM_FLOATS, (k + 1) * ANIM_FLOATS);
  }
  return null;
}

const LOOK_AT = { reason: 'look-at' };

/** The crowd clock the shader sees this frame. */
function clockOf(crowd: Crowd): number {
  return (crowd.renderer.clock as { value: number }).value;
}

describe('Crowd', () => {
  it('draws through plain meshes with an instance count: never SkinnedMesh or InstancedMesh', () => {
    const crowd = new Crowd({ template });
    for (let i = 0; i < 5; i++) crowd.add({ x: i - 2, z: -20, clip: 'walk' });
    crowd.update(1 / 60, camera());
    expect(crowd.renderer.meshes).toHaveLength(3);
    for (const mesh of crowd.renderer.meshes) {
      expect((mesh as { isSkinnedMesh?: boolean }).isSkinnedMesh).toBeUndefined();
      expect((mesh as { isInstancedMesh?: boolean }).isInstancedMesh).toBeUndefined();
      expect(mesh.count).toBe(5);
      expect(mesh.visible).toBe(true);
      expect(mesh.geometry.morphAttributes).toEqual({});
      expect((mesh.material as NodeMaterial).positionNode).toBeTruthy();
    }
    expect(crowd.stats.drawCallsPerPass).toBe(3);
    crowd.clear();
    crowd.update(1 / 60, camera());
    // An empty crowd issues no draws at all.
    for (const mesh of crowd.renderer.meshes) expect(mesh.visible).toBe(false);
    crowd.dispose();
  });

  it('keeps every avatar’s identity and transform through removals (swap-remove)', () => {
    const crowd = new Crowd({ template, capacity: 2 });
    const agents = Array.from({ length: 40 }, (_, i) =>
      crowd.add({ x: i, y: i * 0.1, z: -i, facing: i * 0.05, clip: i % 2 ? 'walk' : 'idle' }),
    );
    for (const i of [0, 5, 39, 17, 18, 1]) agents[i]!.remove();
    const left = agents.filter((a) => !a.removed);
    expect(crowd.count).toBe(34);
    for (const agent of left) {
      const i = agents.indexOf(agent);
      expect([agent.x, agent.y, agent.z, agent.facing]).toEqual([i, Math.fround(i * 0.1), -i, Math.fround(i * 0.05)]);
      expect(agent.clip).toBe(i % 2 ? 'walk' : 'idle');
    }
    expect(new Set(crowd.agentList())).toEqual(new Set(left));
    agents[0]!.remove(); // twice: no-op
    agents[0]!.setTransform(1, 2, 3, 4); // on a removed agent: ignored
    expect(crowd.count).toBe(34);
    crowd.dispose();
  });

  it('makes near controlled avatars live, everyone else GPU-animated, with hysteresis as the camera moves', () => {
    const crowd = new Crowd({ template, lod: { liveEnter: 10, liveExit: 16, minDwell: 0.3 } });
    const agent = crowd.add({ x: 0, z: -5, clip: 'walk' });
    agent.setControl(LOOK_AT);
    const plain = crowd.add({ x: 1, z: -4, clip: 'idle' });
    const far = crowd.add({ x: 0, z: -60, clip: 'idle' });
    far.setControl(LOOK_AT);
    crowd.update(1 / 60, camera(0));
    expect(agent.mode).toBe('live');
    expect([agent.path, agent.reason]).toEqual(['live', 'look-at']);
    // Near but without procedural control: the GPU animates it.
    expect([plain.path, plain.reason]).toEqual(['gpu', 'no procedural control']);
    expect([far.path, far.reason]).toEqual(['gpu', 'control beyond the live radius']);
    expect(crowd.stats).toMatchObject({ live: 1, gpu: 2, visible: 3 });
    expect(crowd.stats.reasons).toEqual({ 'live: look-at': 1, 'gpu: no procedural control': 1, 'gpu: control beyond the live radius': 1 });
    // Backing the camera off to 13 m (between the thresholds): still live.
    for (let f = 0; f < 60; f++) crowd.update(1 / 60, camera(8));
    expect(agent.mode).toBe('live');
    // Beyond liveExit: GPU.
    for (let f = 0; f < 5; f++) crowd.update(1 / 60, camera(13));
    expect(agent.mode).toBe('gpu');
    // Back to 13 m: stays on the GPU (it only re-enters under liveEnter).
    for (let f = 0; f < 60; f++) crowd.update(1 / 60, camera(8));
    expect(agent.mode).toBe('gpu');
    for (let f = 0; f < 5; f++) crowd.update(1 / 60, camera(2));
    expect(agent.mode).toBe('live');
    // Control released: back to the GPU at once.
    agent.setControl(null);
    crowd.update(1 / 60, camera(2));
    expect([agent.path, agent.reason]).toEqual(['gpu', 'no procedural control']);
    crowd.dispose();
  });

  it('writes GPU avatars a (clip, phase, speed) record whose clock arithmetic lands on the CPU state’s rows, frame after frame, with no upload', () => {
    const crowd = new Crowd({ template, lod: { liveEnter: 10, liveExit: 16 } });
    const near = crowd.add({ x: 1, z: -4, clip: 'dance', time: 0.5 });
    near.setControl(LOOK_AT);
    const far = crowd.add({ x: 3, z: -40, clip: 'walk', time: 0.25, speed: 1.3 });
    crowd.update(0.1, camera());
    const walk = crowd.baked.plan.clips[template.clipIndex('walk')]!;
    for (let f = 0; f < 90; f++) {
      const record = recordOf(crowd, far)!;
      expect(record[AnimField.LiveSlot]).toBe(-1);
      expect(record[AnimField.Clip]).toBe(template.clipIndex('walk'));
      expect(record[AnimField.Speed]).toBeCloseTo(1.3, 6);
      const expected = bakedFrame(walk, far.time);
      const gpu = recordClipFrame(walk, record[AnimField.Phase]!, record[AnimField.Speed]!, clockOf(crowd));
      // Same place in the clip (in frames; a loop's last frame is its first, and float32 may land on either side of a frame).
      const span = walk.frames - 1;
      const d = Math.abs(gpu.row0 + gpu.frac - (expected.row0 + expected.frac)) % span;
      expect(Math.min(d, span - d)).toBeLessThan(2e-3);
      expect(recordWeight(record[AnimField.FadeStart]!, record[AnimField.FadeRate]!, clockOf(crowd))).toBe(1);
      crowd.update(1 / 60, camera());
      // Nothing changed but time: the GPU advances it, nothing uploads but the live avatar's bones.
      expect(crowd.stats.instanceBytes).toBe(0);
    }
    expect(far.time).toBeCloseTo((0.25 + (0.1 + 90 / 60) * 1.3) % walk.duration, 4);

    const nearRecord = recordOf(crowd, near)!;
    const slot = nearRecord[AnimField.LiveSlot]!;
    expect(slot).toBeGreaterThanOrEqual(0);
    const reference = new VirtualSkeleton(template);
    reference.pose(near.anim.sample());
    const rows = new Float32Array(template.boneCount * FLOATS_PER_BONE);
    reference.writePose(rows, 0);
    const live = crowd.renderer.live.channels.bones!.subarray(crowd.renderer.liveOffset(slot), crowd.renderer.liveOffset(slot + 1));
    for (let i = 0; i < rows.length; i++) expect(live[i]).toBeCloseTo(rows[i]!, 5);
    crowd.dispose();
  });

  it('writes a crossfade as both clips and a fade the GPU eases by the clock, matching AnimState', () => {
    const crowd = new Crowd({ template });
    const agent = crowd.add({ z: -30, clip: 'walk' });
    crowd.update(0.1, camera());
    agent.play('wave', { fade: 0.5 });
    crowd.update(0.25, camera());
    // The change uploads one animation record (48 B), once.
    expect(crowd.stats.animBytes).toBe(ANIM_FLOATS * 4);
    const record = recordOf(crowd, agent)!;
    const wave = crowd.baked.plan.clips[template.clipIndex('wave')]!;
    const walk = crowd.baked.plan.clips[template.clipIndex('walk')]!;
    expect(record[AnimField.PreviousClip]).toBe(template.clipIndex('walk'));
    expect(recordWeight(record[AnimField.FadeStart]!, record[AnimField.FadeRate]!, clockOf(crowd))).toBeCloseTo(agent.anim.weight, 5);
    expect(agent.anim.weight).toBeCloseTo(0.5, 5);
    expect(recordClipFrame(wave, record[AnimField.Phase]!, record[AnimField.Speed]!, clockOf(crowd)).row0).toBe(
      bakedFrame(wave, 0.25).row0,
    );
    expect(recordClipFrame(walk, record[AnimField.PreviousPhase]!, record[AnimField.PreviousSpeed]!, clockOf(crowd)).row0).toBe(
      bakedFrame(walk, 0.35).row0,
    );
    // Later frames: the weight moves on the GPU alone.
    crowd.update(0.125, camera());
    expect(crowd.stats.animBytes).toBe(0);
    expect(recordWeight(record[AnimField.FadeStart]!, record[AnimField.FadeRate]!, clockOf(crowd))).toBeCloseTo(agent.anim.weight, 5);
    // A speed change is a new record too.
    agent.play('wave', { speed: 2 });
    crowd.update(0.5, camera());
    expect(crowd.stats.animBytes).toBe(ANIM_FLOATS * 4);
    expect(recordClipFrame(wave, record[AnimField.Phase]!, record[AnimField.Speed]!, clockOf(crowd)).row0).toBe(
      bakedFrame(wave, agent.time).row0,
    );
    crowd.dispose();
  });

  it('keeps GPU time exact over long sessions (the clock is rebased, records rewritten once)', () => {
    const crowd = new Crowd({ template });
    const agent = crowd.add({ z: -10, clip: 'walk', speed: 0.9 });
    const walk = crowd.baked.plan.clips[template.clipIndex('walk')]!;
    let rewrites = 0;
    for (let f = 0; f < 700; f++) {
      crowd.update(0.5, camera());
      if (f > 0 && crowd.stats.animBytes > 0) rewrites++;
    }
    expect(crowd.time).toBeCloseTo(350, 6);
    expect(clockOf(crowd)).toBeLessThan(257);
    expect(rewrites).toBe(1);
    const record = recordOf(crowd, agent)!;
    expect(recordClipFrame(walk, record[AnimField.Phase]!, record[AnimField.Speed]!, clockOf(crowd)).row0).toBe(
      bakedFrame(walk, agent.time).row0,
    );
    crowd.dispose();
  });

  it('gives each avatar a palette entry in its record (0: the file’s colours)', () => {
    const crowd = new Crowd({
      template,
      palette: [
        [1, 1, 1],
        [0.8, 0.2, 0.2],
        [0.2, 0.3, 0.9],
      ],
    });
    const a = crowd.add({ z: -10, clip: 'walk', palette: 2 });
    const b = crowd.add({ x: 1, z: -10, clip: 'walk' });
    crowd.update(0.1, camera());
    expect(recordOf(crowd, a)![AnimField.Palette]).toBe(2);
    expect(recordOf(crowd, b)![AnimField.Palette]).toBe(0);
    b.setPalette(9);
    crowd.update(0.1, camera());
    expect(b.palette).toBe(2);
    expect(recordOf(crowd, b)![AnimField.Palette]).toBe(2);
    expect(crowd.stats.animBytes).toBe(ANIM_FLOATS * 4);
    // Recoloured clothing is a colour node on that piece's material only.
    const clothing = crowd.renderer.meshes.find((m) => m.name === 'crowd-clothing')!;
    const body = crowd.renderer.meshes.find((m) => m.name === 'crowd-body')!;
    expect((clothing.material as NodeMaterial).colorNode).toBeTruthy();
    expect((body.material as NodeMaterial).colorNode).toBeNull();
    crowd.dispose();
  });

  it('culls avatars outside the view: not drawn, not promoted', () => {
    const crowd = new Crowd({ template });
    const behind = crowd.add({ z: 5, clip: 'walk' });
    const ahead = crowd.add({ z: -5, clip: 'walk' });
    behind.setControl(LOOK_AT);
    crowd.update(1 / 60, camera());
    expect(behind.onScreen).toBe(false);
    expect(behind.mode).toBe('gpu');
    expect([behind.path, behind.reason]).toEqual(['culled', 'outside the view']);
    expect(recordOf(crowd, behind)).toBeNull();
    expect(recordOf(crowd, ahead)).not.toBeNull();
    expect(crowd.stats).toMatchObject({ agents: 2, visible: 1, culled: 1, gpu: 1, live: 0 });
    expect(crowd.stats.reasons).toEqual({ 'gpu: no procedural control': 1, 'culled: outside the view': 1 });
    expect(crowd.renderer.meshes[0]!.count).toBe(1);
    crowd.dispose();
  });

  it('runs far live mixers less often, and off-screen live mixers least', () => {
    const lod = { liveEnter: 30, liveExit: 40, fullRateDistance: 5, rateBand: 5, maxVisibleInterval: 4, culledInterval: 12, minDwell: 0 };
    const count = (z: number, turnAway: boolean): number => {
      const crowd = new Crowd({ template, lod });
      crowd.add({ z, clip: 'walk' }).setControl(LOOK_AT);
      crowd.update(1 / 60, camera()); // promotion frame: always poses
      let updates = 0;
      const cam = camera();
      if (turnAway) {
        cam.lookAt(0, 1.6, 10);
        cam.updateMatrixWorld();
      }
      for (let f = 0; f < 48; f++) {
        crowd.update(1 / 60, cam);
        updates += crowd.stats.liveUpdates;
      }
      crowd.dispose();
      return updates;
    };
    expect(count(-3, false)).toBe(48);
    expect(count(-12, false)).toBe(16); // 3 frames apart
    expect(count(-25, false)).toBe(12); // capped at 4
    expect(count(-3, true)).toBe(4); // behind the camera: every 12th frame
  });

  it('grows the live buffer past its first capacity and keeps every live avatar’s pose', () => {
    const crowd = new Crowd({ template, lod: { liveEnter: 50, liveExit: 60, maxLive: 40 } });
    const agents = Array.from({ length: 30 }, (_, i) =>
      crowd.add({ x: (i % 6) - 3, z: -4 - Math.floor(i / 6), clip: ['walk', 'idle', 'dance'][i % 3]!, time: i * 0.05 }),
    );
    for (const agent of agents) agent.setControl(LOOK_AT);
    crowd.update(1 / 60, camera());
    const capacityBefore = crowd.renderer.live.capacity;
    const more = Array.from({ length: 10 }, (_, i) => crowd.add({ x: i - 5, z: -12, clip: 'wave', time: i * 0.1 }));
    for (const agent of more) agent.setControl(LOOK_AT);
    crowd.update(1 / 60, camera());
    expect(crowd.stats.live).toBe(40);
    expect(crowd.renderer.live.capacity).toBeGreaterThan(capacityBefore);
    expect(crowd.renderer.rebuilds).toBeGreaterThan(0);
    // Remove a few live avatars: others move into their slots but keep their own poses.
    for (const a of agents.slice(0, 7)) a.remove();
    crowd.update(0, camera());
    const reference = new VirtualSkeleton(template);
    const rows = new Float32Array(template.boneCount * FLOATS_PER_BONE);
    for (const agent of [...agents.slice(7), ...more]) {
      expect(agent.mode).toBe('live');
      const record = recordOf(crowd, agent)!;
      const slot = record[AnimField.LiveSlot]!;
      reference.pose(agent.anim.sample());
      reference.writePose(rows, 0);
      const live = crowd.renderer.live.channels.bones!.subarray(crowd.renderer.liveOffset(slot), crowd.renderer.liveOffset(slot + 1));
      let worst = 0;
      for (let i = 0; i < rows.length; i++) worst = Math.max(worst, Math.abs(live[i]! - rows[i]!));
      expect(worst).toBeLessThan(1e-4);
    }
    crowd.dispose();
  });

  it('never exceeds maxLive, however many avatars stand close', () => {
    const crowd = new Crowd({ template, lod: { maxLive: 8 } });
    for (let i = 0; i < 50; i++) crowd.add({ x: (i % 10) - 5, z: -3 - Math.floor(i / 10), clip: 'idle' }).setControl(LOOK_AT);
    crowd.update(1 / 60, camera());
    expect(crowd.stats.live).toBe(8);
    expect(crowd.stats.gpu + crowd.stats.culled).toBe(42);
    expect(crowd.stats.reasons['gpu: live budget full']).toBe(crowd.stats.gpu);
    expect(crowd.renderer.live.capacity).toBeLessThanOrEqual(8);
    crowd.dispose();
  });

  it('uploads only what changed: live slots sampled, 16 B per moved avatar, 48 B per new animation record', () => {
    const crowd = new Crowd({ template, lod: { maxLive: 4, fullRateDistance: 2, rateBand: 3 }, path: 'storage' });
    const agents = Array.from({ length: 20 }, (_, i) => crowd.add({ x: (i % 5) - 2, z: -5 - Math.floor(i / 5) * 3, clip: 'walk' }));
    for (const agent of agents.slice(0, 6)) agent.setControl(LOOK_AT);
    const slotBytes = template.boneCount * FLOATS_PER_BONE * 4;
    crowd.update(1 / 60, camera());
    // The first upload after allocation sends the whole (fresh) buffers.
    expect(crowd.stats.liveBytes).toBe(crowd.renderer.live.capacity * slotBytes);
    let total = 0;
    let updates = 0;
    for (let f = 0; f < 12; f++) {
      // Three avatars walk (new pose each frame), one changes clip on frame 5.
      for (const [i, agent] of agents.slice(10, 13).entries()) agent.setTransform(agent.x + 0.01, 0, agent.z, i * 0.1);
      if (f === 5) agents[15]!.play('idle');
      crowd.update(1 / 60, camera());
      expect(crowd.stats.liveBytes).toBe(crowd.stats.liveUpdates * slotBytes);
      expect(crowd.stats.poseBytes).toBe(3 * POSE_FLOATS * 4);
      expect(crowd.stats.animBytes).toBe(f === 5 ? ANIM_FLOATS * 4 : 0);
      expect(crowd.stats.uploadBytes).toBe(crowd.stats.liveBytes + crowd.stats.poseBytes + crowd.stats.animBytes);
      total += crowd.stats.liveBytes;
      updates += crowd.stats.liveUpdates;
    }
    // Avatars 5–8 m away are sampled every 2nd or 3rd frame: fewer uploads than live avatars × frames.
    expect(crowd.stats.live).toBe(4);
    expect(updates).toBeLessThan(4 * 12);
    expect(total).toBe(updates * slotBytes);
    // Without live avatars, a standing crowd uploads nothing at all.
    for (const agent of agents) agent.setControl(null);
    crowd.update(1 / 60, camera());
    crowd.update(1 / 60, camera());
    expect(crowd.stats.uploadBytes).toBe(0);
    crowd.dispose();
  });

  it('keeps records in draw order as avatars leave and enter the view (swap-remove in the drawn range)', () => {
    const crowd = new Crowd({ template });
    const agents = Array.from({ length: 8 }, (_, i) => crowd.add({ x: i - 4, z: -10, clip: i % 2 ? 'walk' : 'idle', palette: 0 }));
    crowd.update(1 / 60, camera());
    expect(crowd.renderer.drawCount).toBe(8);
    // Two avatars step behind the camera.
    agents[1]!.setTransform(0, 0, 20, 0);
    agents[4]!.setTransform(1, 0, 20, 0);
    crowd.update(1 / 60, camera());
    expect(crowd.renderer.drawCount).toBe(6);
    for (const agent of agents) {
      const record = recordOf(crowd, agent);
      if (agent === agents[1] || agent === agents[4]) expect(record).toBeNull();
      else expect(record![AnimField.Clip]).toBe(agent.anim.clip);
    }
    // Back in view: drawn again with their own records.
    agents[4]!.setTransform(1, 0, -12, 0);
    crowd.update(1 / 60, camera());
    expect(crowd.renderer.drawCount).toBe(7);
    expect(recordOf(crowd, agents[4]!)![AnimField.Clip]).toBe(agents[4]!.anim.clip);
    crowd.dispose();
  });

  it('re-uploads a slot refilled by swap-remove even when its avatar did not update', () => {
    const crowd = new Crowd({
      template,
      lod: { liveEnter: 40, liveExit: 50, fullRateDistance: 1, rateBand: 1, maxVisibleInterval: 30 },
      path: 'storage',
    });
    const agents = Array.from({ length: 6 }, (_, i) => crowd.add({ x: i - 3, z: -20, clip: 'idle' }));
    for (const agent of agents) agent.setControl(LOOK_AT);
    crowd.update(1 / 60, camera());
    crowd.update(1 / 60, camera());
    const before = crowd.stats.liveUpdates;
    agents[0]!.remove();
    crowd.update(1 / 60, camera());
    const slotBytes = template.boneCount * FLOATS_PER_BONE * 4;
    // One slot moved (the last avatar into slot 0) on top of whatever mixers ran.
    expect(crowd.stats.liveBytes).toBe((crowd.stats.liveUpdates + 1) * slotBytes);
    expect(before).toBeLessThan(6);
    crowd.dispose();
  });

  it('picks the texture path on WebGL2 and on devices without vertex storage buffers', () => {
    expect(new Crowd({ template, device: { backend: 'WebGL2' } }).stats.path).toBe('texture');
    expect(new Crowd({ template, device: { backend: 'WebGPU', maxVertexStorageBuffers: 0 } }).stats.path).toBe('texture');
    expect(new Crowd({ template, device: { backend: 'WebGPU', maxVertexStorageBuffers: 8 } }).stats.path).toBe('storage');
  });
});

describe('RemoteAvatars', () => {
  it('drops updates that arrive before a crowd exists, without touching anything', () => {
    const remotes = new RemoteAvatars<string>();
    expect(remotes.update('ann', { x: 1, y: 0, z: -3, facing: 0, clip: 'walk' })).toBe(false);
    expect(remotes.update('bob', { x: 2, y: 0, z: -3, facing: 0 })).toBe(false);
    expect(remotes.dropped).toBe(2);
    expect(remotes.count).toBe(0);
    remotes.remove('ann'); // unknown: ignored
  });

  it('creates, moves and removes avatars once attached, and survives a crowd rebuild', () => {
    const remotes = new RemoteAvatars<string>();
    const first = new Crowd({ template });
    remotes.attach(first);
    remotes.update('ann', { x: 1, y: 0, z: -3, facing: 0.5, clip: 'walk' });
    remotes.update('ann', { x: 1.5, y: 0, z: -3.2, facing: 0.6, clip: 'wave', fade: 0.3 });
    expect(first.count).toBe(1);
    const ann = remotes.agent('ann')!;
    expect([ann.x, ann.z, ann.clip]).toEqual([1.5, Math.fround(-3.2), 'wave']);
    // The character model changes: a new crowd replaces the old one.
    const second = new Crowd({ template });
    remotes.attach(second);
    expect(first.count).toBe(0);
    expect(second.count).toBe(1);
    expect(remotes.agent('ann')!.clip).toBe('wave');
    remotes.remove('ann');
    expect(second.count).toBe(0);
    remotes.detach();
    expect(remotes.update('ann', { x: 0, y: 0, z: 0, facing: 0 })).toBe(false);
  });
});

describe('MixedCrowd', () => {
  it('puts several bodies in one crowd at one draw call per piece each, with merged figures', async () => {
    const { MixedCrowd } = await import('../../../src/crowd/mixed-crowd.ts');
    const { buildFixtureCharacter } = await import('../../harness/crowd-fixtures.ts');
    const other = new CrowdTemplate(buildFixtureCharacter(), { name: 'fixture' });
    const mixed = new MixedCrowd({
      templates: [template, other],
      palette: [
        [1, 1, 1],
        [0.8, 0.2, 0.2],
      ],
    });
    const agents = Array.from({ length: 10 }, (_, i) => mixed.add({ x: i - 5, z: -12, body: i % 2, palette: i % 2, clip: 'walk' }));
    mixed.update(1 / 60, camera());
    expect(mixed.crowds.map((c) => c.count)).toEqual([5, 5]);
    expect(mixed.object.children).toEqual(mixed.crowds.map((c) => c.object));
    const pieces = template.pieces.length + other.pieces.length;
    expect(mixed.stats.drawCallsPerPass).toBe(mixed.crowds[0]!.stats.drawCallsPerPass + mixed.crowds[1]!.stats.drawCallsPerPass);
    expect(mixed.stats.pieces).toBe(pieces);
    expect(mixed.stats).toMatchObject({ agents: 10, visible: 10, gpu: 10, template: 'mannequin + fixture' });
    expect(mixed.stats.reasons).toEqual({ 'gpu: no procedural control': 10 });
    // Every body's meshes draw exactly its own avatars.
    for (const crowd of mixed.crowds) for (const mesh of crowd.renderer.meshes) expect(mesh.count).toBe(5);
    agents[0]!.remove();
    mixed.update(1 / 60, camera());
    expect(mixed.count).toBe(9);
    mixed.dispose();
  });
});

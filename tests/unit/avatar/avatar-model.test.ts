/**
 * The world's player as a character file, in Node through the same import layer the page uses: a
 * robot without clips gets the library retargeted, a real character pack keeps its own clips, mocap
 * and bad URLs are refused with their cause, and the swap releases the built-in humanoid.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AnimationClip, AnimationMixer, Box3, Group, Vector3, VectorKeyframeTrack, type Mesh, type SkinnedMesh } from 'three';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseRig } from '../../../src/rig/load.ts';
import { gltfBytesForThree, readGltfDocument, readModelFile } from '../../../src/rig/node/model-file.ts';
import { libraryForRig } from '../../../src/anim/retarget/library-for-rig.ts';
import { loadAvatarModel, prepareAvatarModel } from '../../../src/avatar/avatar-model.ts';
import { avatarNotice } from '../../../src/avatar/avatar-report.ts';
import { PlayerAvatar } from '../../../src/avatar/player-avatar.ts';
import type { PlayerState } from '../../../src/world/player/player-controller.ts';

vi.setConfig({ testTimeout: 60_000 });

const FIXTURES = join(import.meta.dirname, '../../fixtures/import');
const file = (name: string): File => new File([readFileSync(join(FIXTURES, name))], name);

function state(overrides: Partial<PlayerState>): PlayerState {
  return { x: 3, y: 2, z: -4, facing: 0, vx: 0, vy: 0, vz: 0, speed: 0, grounded: true, state: 'idle', ...overrides };
}

function run(avatar: PlayerAvatar, s: PlayerState, seconds: number): void {
  for (let t = 0; t < seconds; t += 1 / 30) avatar.update(s, 1 / 30);
}

/** The lowest point of the posed character (skinned vertices where the bones put them). */
function bottom(avatar: PlayerAvatar): number {
  avatar.object.updateMatrixWorld(true);
  avatar.object.traverse((node) => (node as SkinnedMesh).isSkinnedMesh && (node as SkinnedMesh).skeleton.update());
  return new Box3().setFromObject(avatar.object, true).min.y;
}

afterEach(() => vi.unstubAllGlobals());

describe('a character file as the player', () => {
  it('gives a robot without clips the library, retargeted, and draws all of it', async () => {
    const model = await loadAvatarModel(file('robot-rigid.glb'));
    expect(model.report).toMatchObject({ name: 'robot-rigid.glb', fileClips: 0, bones: 25, sourceVertices: 360, drawnVertices: 360 });
    expect(model.report.height).toBeGreaterThan(1.6);
    expect(model.report.retargeted).toEqual(['idle', 'walk_fwd', 'run_fwd', 'jump', 'swim_tread', 'swim_freestyle']);
    expect(model.assignment.clips).toMatchObject({ idle: 'idle', walk: 'walk_fwd', run: 'run_fwd', swim_fast: 'swim_freestyle' });
    // Retargeted onto the robot's own bones, with the library's playback speed carried over.
    expect(model.clips.find((c) => c.name === 'walk_fwd')!.tracks.some((t) => t.name.startsWith('mixamorigLeftUpLeg'))).toBe(true);
    expect((model.clips.find((c) => c.name === 'walk_fwd')!.userData as { speed: number }).speed).toBeGreaterThan(0.5);
    const notice = avatarNotice({
      source: '/models/robot-rigid.glb',
      status: 'ready',
      error: null,
      reason: null,
      name: model.report.name,
      height: model.report.height,
      fileHeight: model.report.fileHeight,
      scale: model.report.scale,
      clips: model.assignment.clips,
      clipSources: model.assignment.sources,
      fileClips: 0,
      fileClipNames: [],
      retargeted: model.report.retargeted,
      losses: [],
      sourceVertices: 360,
      drawnVertices: 360,
      groundOffset: model.groundOffset,
    });
    expect(notice?.level).toBe('info');
    // Inside a person's heights: the file's height is kept and the notice says no scale.
    expect(model.report).toMatchObject({ scale: 1, fileHeight: model.report.height });
    expect(notice?.detail).toMatch(/1\.8\d m tall; draws 360 of 360 vertices/);
    expect(notice?.detail).toMatch(/6 library clip\(s\) retargeted onto it/);
    expect(notice?.detail).toMatch(/walk ← walk_fwd \(library\)/);
  });

  it('keeps a real character’s own clips and says which states borrow another clip', async () => {
    // Kenney's mini character: 7 bones, no hips to map the library onto, 32 clips of its own.
    const rig = await readModelFile(join(FIXTURES, 'kenney-character-male-a.glb'));
    const model = await prepareAvatarModel(rig, 'kenney-character-male-a.glb');
    expect(model.assignment.clips).toEqual({ idle: 'idle', walk: 'walk', run: 'sprint', jump: 'jump', swim: 'idle', swim_fast: 'walk' });
    expect(model.clips.map((c) => c.name)).toEqual(['idle', 'walk', 'sprint', 'jump']);
    expect(model.report.retargeted).toEqual([]);
    expect(model.report.notes.join('\n')).toMatch(/no hips bone/);
    expect(model.report.notes.join('\n')).toMatch(/swim plays idle, swim_fast plays walk/);
    // Its own height (0.67 m, a stylised mini character in metres): the avatar is not rescaled.
    expect(model.report.height).toBeCloseTo(0.67, 2);
    expect(model.report.scale).toBe(1);
    expect(model.report.notes.join('\n')).not.toMatch(/scaled ×/);
  });

  it('plays the own clips of a Mixamo rig exported from Blender (`Armature|Armature|walk_Armature`) and the library for the rest', async () => {
    // The Mesh2Motion zombie rig with three clips of its own named as Blender names a Mixamo rig's
    // actions; Node decodes no images, so the import layer's Node path hands three the model without them.
    const rig = await parseRig(
      await gltfBytesForThree(await readGltfDocument(join(FIXTURES, 'm2m-human-zombie.glb'))),
      'm2m-human-zombie.glb',
    );
    const own = await libraryForRig(rig.object, rig.bones, 'zombie', { clips: ['idle', 'walk_fwd', 'run_fwd'] });
    rig.clips = own.clips.map((clip) => {
      const renamed = clip.clone();
      renamed.name = `Armature|Armature|${clip.name.replace('_fwd', '')}_Armature`;
      return renamed;
    });
    const model = await prepareAvatarModel(rig, 'zombie-mixamo.glb');
    expect(model.assignment.clips).toMatchObject({
      idle: 'Armature|Armature|idle_Armature',
      walk: 'Armature|Armature|walk_Armature',
      run: 'Armature|Armature|run_Armature',
    });
    expect(model.assignment.sources).toEqual({
      idle: 'file',
      walk: 'file',
      run: 'file',
      jump: 'library',
      swim: 'library',
      swim_fast: 'library',
    });
    expect(model.report.fileClips).toBe(3);
    expect(model.report.retargeted).toEqual(['jump', 'swim_tread', 'swim_freestyle']);
  });

  it('plays the three.js robot’s own clips with its face morphs bound, and says what its import lost', async () => {
    const rig = await readModelFile(join(FIXTURES, 'robot-expressive.glb'));
    const model = await prepareAvatarModel(rig, 'robot-expressive.glb');
    expect(model.assignment.clips).toMatchObject({ idle: 'Idle', walk: 'Walking', run: 'Running', jump: 'Jump' });
    expect(model.report.fileClipNames).toHaveLength(14);
    // The morph tracks of the merged robot find the head pieces that draw its face: nothing dropped.
    expect(model.report.losses).toEqual([]);
    const head = rig.object.getObjectByName('Head_4') as Mesh;
    expect(head.morphTargetInfluences).toHaveLength(3);
    const errors: unknown[] = [];
    const spy = vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => void errors.push(args));
    const mixer = new AnimationMixer(model.object);
    const idle = mixer.clipAction(model.clips.find((clip) => clip.name === 'Idle')!);
    idle.play();
    mixer.update(0.5);
    spy.mockRestore();
    expect(errors).toEqual([]);
    // The notice names the clips no state plays.
    const notice = avatarNotice({
      source: 'robot-expressive.glb',
      status: 'ready',
      error: null,
      reason: null,
      name: model.report.name,
      height: model.report.height,
      fileHeight: model.report.fileHeight,
      scale: model.report.scale,
      clips: model.assignment.clips,
      clipSources: model.assignment.sources,
      fileClips: model.report.fileClips,
      fileClipNames: model.report.fileClipNames,
      retargeted: model.report.retargeted,
      losses: model.report.losses,
      sourceVertices: model.report.sourceVertices,
      drawnVertices: model.report.drawnVertices,
      groundOffset: model.groundOffset,
    });
    expect(notice?.detail).toMatch(/clips: idle ← Idle \(file\), walk ← Walking \(file\), run ← Running \(file\), jump ← Jump \(file\)/);
    expect(notice?.detail).toMatch(/file clips no state plays: Dance, Death, No, Punch, Sitting, Standing, ThumbsUp, WalkJump, …/);
  });

  it('says a missing texture and clip tracks that animate nothing, in the notice and the report', async () => {
    const rig = await readModelFile(join(FIXTURES, 'robot-rigid.glb'));
    rig.report.losses.push({ kind: 'missing-texture', file: 'Textures/colormap.png' });
    const hips = rig.object.getObjectByName('mixamorigHips')!;
    rig.clips = [
      new AnimationClip('Idle', 1, [
        new VectorKeyframeTrack('mixamorigHips.position', [0, 1], [...hips.position.toArray(), ...hips.position.toArray()]),
        new VectorKeyframeTrack('Tail.position', [0, 1], [0, 0, 0, 0, 1, 0]),
      ]),
    ];
    const model = await prepareAvatarModel(rig, 'robot.glb', { library: false });
    expect(model.report.losses).toEqual([
      'texture "Textures/colormap.png" is missing: drawn without it',
      '1 clip track dropped: they animate nothing in the model (Idle: Tail.position)',
    ]);
    expect(model.clips[0]!.tracks.map((t) => t.name)).toEqual(['mixamorigHips.position']);
  });

  it('plays a file clip that travels in place, at the speed it travelled', async () => {
    const bytes = readFileSync(join(FIXTURES, 'robot-rigid.glb'));
    const rig = await parseRig(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, 'robot.glb');
    // A walk exported with root motion: the hips go 1.5 m forward in 1 s, bobbing 3 cm.
    const hips = rig.object.getObjectByName('mixamorigHips')!;
    const times = Array.from({ length: 31 }, (_, i) => i / 30);
    const values = times.flatMap((t) => [hips.position.x, hips.position.y + 0.03 * Math.sin(t * 4 * Math.PI), hips.position.z + 1.5 * t]);
    rig.clips = [new AnimationClip('Armature|Walk', 1, [new VectorKeyframeTrack('mixamorigHips.position', times, values)])];
    const model = await prepareAvatarModel(rig, 'robot.glb', { library: false });
    expect(model.assignment.clips.walk).toBe('Armature|Walk');
    const walk = model.clips.find((c) => c.name === 'Armature|Walk')!;
    const out = walk.tracks[0]!.values;
    // No net travel; the bob stays.
    expect(out[30 * 3 + 2]).toBeCloseTo(out[2]!, 5);
    expect(out[15 * 3 + 2]).toBeCloseTo(out[2]!, 5);
    expect(out[3 * 3 + 1]! - out[1]!).toBeCloseTo(0.03 * Math.sin(0.4 * Math.PI), 5);
    expect((walk.userData as { speed: number }).speed).toBeCloseTo(1.5, 5);
    expect(model.report.notes.join('\n')).toMatch(/Armature\|Walk: its root travels 1\.50 m over the clip; played in place at 1\.50 m\/s/);
    // The rig's own clip is left as the file had it.
    expect(rig.clips[0]!.tracks[0]!.values[30 * 3 + 2]).toBeCloseTo(hips.position.z + 1.5, 5);
  });

  it('reads a lone clip under an exporter placeholder name by the file name (Mixamo’s "mixamo.com")', async () => {
    const bytes = readFileSync(join(FIXTURES, 'robot-rigid.glb'));
    const rig = await parseRig(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, 'Running.glb');
    rig.clips = [
      new AnimationClip('Armature|mixamo.com|Layer0', 1, [new VectorKeyframeTrack('mixamorigHips.position', [0, 1], [0, 1, 0, 0, 1, 0])]),
    ];
    const model = await prepareAvatarModel(rig, 'Running.glb', { library: false });
    expect(model.assignment.sources.run).toBe('file');
    expect(model.assignment.clips.run).toBe('Running');
    expect(model.report.notes.join('\n')).toMatch(/its one clip "Armature\|mixamo\.com\|Layer0" is taken by the file's name: "Running"/);
  });

  it('lifts a model whose origin is at its hips so its feet meet the ground, scaled or not', async () => {
    const bytes = readFileSync(join(FIXTURES, 'robot-rigid.glb'));
    for (const height of ['auto', 1.2] as const) {
      const rig = await parseRig(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, 'robot.glb');
      // As some exporters leave it: the file's origin at the hips, the feet 0.9 m below it.
      rig.object.children[0]!.position.y -= 0.9;
      const model = await prepareAvatarModel(rig, 'robot.glb', { height, library: false });
      // Measured after scaling: 0.9 m of the file is 0.9 × 1.2 / 1.865 m of the player.
      const lift = 0.9 * model.report.scale;
      expect(model.report.scale).toBeCloseTo(height === 'auto' ? 1 : 1.2 / 1.865, 2);
      expect(model.groundOffset).toBeGreaterThan(lift - 0.05);
      expect(model.groundOffset).toBeLessThan(lift + 0.05);
      model.object.position.y = model.groundOffset;
      model.object.updateMatrixWorld(true);
      expect(Math.abs(new Box3().setFromObject(model.object, true).min.y)).toBeLessThan(0.01);
    }
  });

  it('refuses mocap (nothing to draw) and names a 404', async () => {
    await expect(loadAvatarModel(file('cmu-131-01-walk.bvh'))).rejects.toMatchObject({
      reason: 'no-mesh',
      message: expect.stringMatching(/^cmu-131-01-walk\.bvh: has a skeleton \(31 bones\) but no mesh: nothing to draw/),
    });
    await expect(loadAvatarModel(file('skeleton-only.glb'))).rejects.toMatchObject({ reason: 'no-mesh' });
    vi.stubGlobal('fetch', () => Promise.resolve(new Response('no', { status: 404 })));
    await expect(loadAvatarModel('/models/gone.glb')).rejects.toMatchObject({
      reason: 'not-found',
      message: expect.stringMatching(/^gone\.glb: HTTP 404/),
    });
    await expect(loadAvatarModel('/models/photo.png')).rejects.toMatchObject({ reason: 'unsupported' });
  });
});

describe('PlayerAvatar.load', () => {
  it.each([
    // Quaternius's Blender characters: 485 and 824 units tall, read as millimetres by the import.
    [
      'quaternius-male-casual.fbx',
      0.485,
      { height: '0.49', scale: '3.61' },
      { idle: 'HumanArmature|Man_Idle', walk: 'HumanArmature|Man_Walk', run: 'HumanArmature|Man_Run', jump: 'HumanArmature|Man_Jump' },
    ],
    [
      'quaternius-zombie.fbx',
      0.824,
      { height: '0.82', scale: '2.12' },
      { idle: 'Zombie|ZombieIdle', walk: 'Zombie|ZombieWalk', run: 'Zombie|ZombieRun' },
    ],
  ])('scales %s (a unit guess, %f m) to a person, standing on its feet in idle and walk', async (name, fileHeight, shown, clips) => {
    const avatar = new PlayerAvatar({ detail: 'low' });
    let noticeNotes: readonly string[] = [];
    avatar.on('status', ({ notes }) => (noticeNotes = notes));
    const stats = await avatar.load(file(name));
    expect(stats.status).toBe('ready');
    expect(stats.fileHeight).toBeCloseTo(fileHeight, 2);
    expect(stats.height).toBeCloseTo(1.75, 5);
    expect(stats.scale).toBeCloseTo(1.75 / fileHeight, 2);
    // Its own clips, by their names under the pack's character word.
    expect(stats.clips).toMatchObject(clips);
    for (const state of Object.keys(clips)) expect(stats.clipSources[state as keyof typeof clips]).toBe('file');
    const notice = avatarNotice(stats, noticeNotes);
    expect(notice?.detail).toMatch(new RegExp(`1\\.75 m tall \\(the file's ${shown.height} m ×${shown.scale}\\)`));
    expect(noticeNotes.join('\n')).toMatch(
      new RegExp(
        `reads ${shown.height} m tall \\(authored in millimetres by the file's size, outside a person's 1\\.2–2\\.4 m\\); scaled ×${shown.scale} to 1\\.75 m`,
      ),
    );
    // Drawn 1.75 m tall in its bind pose.
    const model = avatar.object.children[0]!;
    expect(new Box3().setFromObject(model, true).getSize(new Vector3()).y).toBeCloseTo(1.75, 1);
    run(avatar, state({ state: 'idle' }), 0.5);
    expect(avatar.clipName).toBe(clips.idle);
    expect(Math.abs(bottom(avatar) - 2)).toBeLessThan(0.02);
    run(avatar, state({ state: 'walk', speed: 1.6 }), 0.6);
    expect(avatar.clipName).toBe(clips.walk);
    for (let i = 0; i < 6; i++) {
      run(avatar, state({ state: 'walk', speed: 1.6 }), 0.1);
      // Mid-stride a foot dips or lifts a few centimetres; never floats or sinks by the scale's error.
      expect(Math.abs(bottom(avatar) - 2)).toBeLessThan(0.1);
    }
    avatar.dispose();
  });

  it('swaps the humanoid for the robot, releases the humanoid, and walks it on its feet', async () => {
    const avatar = new PlayerAvatar({ detail: 'low' });
    const humanoid = avatar.humanoid!;
    const released: string[] = [];
    humanoid.object.traverse((node) => {
      if ((node as Mesh).isMesh) (node as Mesh).geometry.addEventListener('dispose', () => released.push(node.name));
    });
    const events: string[] = [];
    avatar.on('status', ({ stats }) => events.push(stats.status));
    run(avatar, state({}), 0.2);

    const pending = avatar.load(file('robot-rigid.glb'));
    expect(avatar.stats.status).toBe('loading');
    // The humanoid keeps playing meanwhile.
    run(avatar, state({ state: 'walk', speed: 1.6 }), 0.1);
    expect(avatar.clipName).toBe('walk');
    const stats = await pending;
    expect(events).toEqual(['loading', 'ready']);
    expect(stats).toMatchObject({ status: 'ready', name: 'robot-rigid.glb', retargeted: expect.arrayContaining(['walk_fwd']) });
    expect(avatar.humanoid).toBeNull();
    expect(released.length).toBeGreaterThan(0);
    expect(humanoid.object.parent).toBeNull();
    expect(avatar.object.children).toHaveLength(1);

    run(avatar, state({ state: 'idle' }), 0.5);
    expect(avatar.clipName).toBe('idle');
    // Placed at the player and standing on the ground (y = 2): its lowest vertex within 2 cm at idle.
    expect(avatar.object.position.x).toBe(3);
    expect(Math.abs(bottom(avatar) - 2)).toBeLessThan(0.02);
    run(avatar, state({ state: 'walk', speed: 1.6 }), 0.5);
    expect(avatar.clipName).toBe('walk_fwd');
    const thigh = avatar.object.getObjectByName('mixamorigLeftUpLeg')!;
    const before = thigh.quaternion.clone();
    run(avatar, state({ state: 'walk', speed: 1.6 }), 0.3);
    expect(thigh.quaternion.angleTo(before)).toBeGreaterThan(0.05);
    // Mid-stride a heel or toe dips a few centimetres, as the humanoid's do (up to 6 cm); never a float.
    expect(Math.abs(bottom(avatar) - 2)).toBeLessThan(0.1);
    run(avatar, state({ state: 'swim', speed: 1.2 }), 0.5);
    expect(avatar.clipName).toBe('swim_freestyle');
    avatar.dispose();
    expect(avatar.object.children).toHaveLength(0);
  });

  it("keeps the file's height with height: 'file' and scales to a number asked for", async () => {
    const avatar = new PlayerAvatar({ detail: 'low', height: 'file' });
    let noticeNotes: readonly string[] = [];
    avatar.on('status', ({ notes }) => (noticeNotes = notes));
    const kept = await avatar.load(file('quaternius-male-casual.fbx'));
    expect(kept).toMatchObject({ status: 'ready', scale: 1 });
    expect(kept.height).toBeCloseTo(0.485, 3);
    expect(noticeNotes.join('\n')).not.toMatch(/scaled ×/);
    expect(avatarNotice(kept, noticeNotes)?.detail).toMatch(/^0\.49 m tall; draws/);
    run(avatar, state({ state: 'idle' }), 0.3);
    expect(Math.abs(bottom(avatar) - 2)).toBeLessThan(0.01);

    // A height for this load only: exactly 1.5 m, on its feet.
    const asked = await avatar.load(file('quaternius-male-casual.fbx'), { height: 1.5 });
    expect(asked.height).toBeCloseTo(1.5, 5);
    expect(asked.scale).toBeCloseTo(1.5 / 0.485, 2);
    expect(noticeNotes.join('\n')).toMatch(/reads 0\.49 m tall; scaled ×3\.09 to 1\.50 m as asked \(height: 1\.5\)/);
    expect(new Box3().setFromObject(avatar.object.children[0]!, true).getSize(new Vector3()).y).toBeCloseTo(1.5, 1);
    run(avatar, state({ state: 'idle' }), 0.3);
    expect(Math.abs(bottom(avatar) - 2)).toBeLessThan(0.02);
    avatar.dispose();
  });

  it('walks a scaled character on the library’s walk: feet on the ground, ground speed in the scaled frame', async () => {
    // Male_Casual without its clips: every state comes from the library, retargeted onto the rig.
    const prepare = async (height: 'auto' | 'file') => {
      const rig = await readModelFile(join(FIXTURES, 'quaternius-male-casual.fbx'));
      rig.clips = [];
      return prepareAvatarModel(rig, 'quaternius-male-casual.fbx', { height });
    };
    const [scaled, unscaled] = [await prepare('auto'), await prepare('file')];
    expect(scaled.assignment.sources.walk).toBe('library');
    const speed = (model: typeof scaled, name: string) => (model.clips.find((c) => c.name === name)!.userData as { speed: number }).speed;
    const swimLift = (model: typeof scaled) =>
      (model.clips.find((c) => c.name === 'swim_tread')!.userData as { rigOffset: number }).rigOffset;
    // The clip's ground speed and swim lift are metres: they follow the wrapper's scale.
    expect(speed(scaled, 'walk_fwd') / speed(unscaled, 'walk_fwd')).toBeCloseTo(scaled.report.scale, 5);
    expect(swimLift(scaled) / swimLift(unscaled)).toBeCloseTo(scaled.report.scale, 5);
    // A person's walk speed, as on the robot (1.87 m): not a half-metre doll's.
    expect(speed(scaled, 'walk_fwd')).toBeGreaterThan(0.9);
    expect(speed(scaled, 'walk_fwd')).toBeLessThan(2);

    // The lowest point over a clip's cycle, metres from the ground, with the model placed as the player places it.
    const lows = (model: typeof scaled, name: string): number[] => {
      const holder = new Group();
      holder.add(model.object);
      model.object.position.y = model.groundOffset;
      const mixer = new AnimationMixer(model.object);
      const clip = model.clips.find((c) => c.name === name)!;
      mixer.clipAction(clip).play();
      const out: number[] = [];
      for (let i = 0; i < 20; i++) {
        mixer.setTime((i / 20) * clip.duration);
        holder.updateMatrixWorld(true);
        model.object.traverse((node) => (node as SkinnedMesh).isSkinnedMesh && (node as SkinnedMesh).skeleton.update());
        out.push(new Box3().setFromObject(holder, true).min.y);
      }
      mixer.stopAllAction();
      return out;
    };
    for (const low of lows(scaled, 'idle')) expect(Math.abs(low)).toBeLessThan(0.02);
    // The walk's contact is the retargeted clip's, only larger: frame by frame the scaled
    // character's lowest point is the unscaled one's times the scale (a wrong hips scale would
    // float or sink it by centimetres), and it never lifts off the ground.
    const [big, small] = [lows(scaled, 'walk_fwd'), lows(unscaled, 'walk_fwd')];
    big.forEach((low, i) => expect(Math.abs(low - small[i]! * scaled.report.scale)).toBeLessThan(0.005));
    expect(Math.max(...big)).toBeLessThan(0.03);
    // The library walk dips a foot into the floor mid-stride on every rig (the robot 8 cm at 1.87 m).
    expect(Math.min(...big)).toBeGreaterThan(-0.15);
    scaled.dispose();
    unscaled.dispose();
  });

  it('keeps what it draws when a load fails, and says why', async () => {
    const avatar = new PlayerAvatar({ detail: 'low' });
    vi.stubGlobal('fetch', () => Promise.resolve(new Response('missing', { status: 404 })));
    const stats = await avatar.load('/models/gone.glb');
    expect(stats).toMatchObject({ status: 'failed', reason: 'not-found', name: 'humanoid', source: '/models/gone.glb' });
    expect(stats.error).toMatch(/gone\.glb: HTTP 404/);
    expect(avatar.humanoid).not.toBeNull();
    expect(avatar.humanoid!.object.parent).toBe(avatar.object);
    const notice = avatarNotice(stats);
    expect(notice).toMatchObject({ level: 'error', title: 'Avatar not loaded: gone.glb' });
    expect(notice?.detail).toMatch(/stays the built-in humanoid/);
    run(avatar, state({ state: 'walk', speed: 1.6 }), 0.2);
    expect(avatar.clipName).toBe('walk');
    avatar.dispose();
  });

  it('releases a loaded character when another replaces it', async () => {
    const avatar = new PlayerAvatar({ detail: 'low' });
    await avatar.load(file('robot-rigid.glb'));
    const first = avatar.object.children[0]!;
    let released = 0;
    first.traverse((node) => {
      if ((node as Mesh).isMesh) (node as Mesh).geometry.addEventListener('dispose', () => released++);
    });
    await avatar.load(file('robot-rigid.glb'));
    expect(avatar.object.children).toHaveLength(1);
    expect(avatar.object.children[0]).not.toBe(first);
    expect(first.parent).toBeNull();
    expect(released).toBe(4);
    avatar.dispose();
  });

  it('drops a load that a later one superseded', async () => {
    const avatar = new PlayerAvatar({ detail: 'low' });
    const first = avatar.load(file('robot-rigid.glb'));
    const second = avatar.load(file('mocap-walk.fbx'));
    await Promise.all([first, second]);
    // The robot finished but was asked over; the mocap was refused: the humanoid stays.
    expect(avatar.stats).toMatchObject({ status: 'failed', reason: 'no-mesh', source: 'mocap-walk.fbx' });
    expect(avatar.humanoid).not.toBeNull();
    expect(avatar.object.children).toHaveLength(1);
    avatar.dispose();
  });
});

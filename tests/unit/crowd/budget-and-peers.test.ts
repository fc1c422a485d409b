import { describe, expect, it } from 'vitest';
import { chooseBonePath } from '../../../src/crowd/bone-path.ts';
import { crowdHudRows, formatBytes } from '../../../src/crowd/crowd-hud.ts';
import { GpuBudget } from '../../../src/crowd/gpu-budget.ts';
import { SyntheticPeers, turnTowards } from '../../../src/crowd/synthetic-peers.ts';

describe('GpuBudget', () => {
  it('calibrates on the empty crowd and passes at idle, whatever the machine’s speed', () => {
    for (const idleMs of [0.4, 3, 45, 1900]) {
      const budget = new GpuBudget();
      let reading = budget.update(idleMs, 0);
      for (let i = 0; i < 10; i++) reading = budget.update(idleMs * (1 + 0.1 * Math.sin(i)), 0);
      expect(reading.tracking).toBe(true);
      expect(reading.state).toBe('pass');
      expect(reading.baselineMs).toBeGreaterThan(idleMs * 0.85);
    }
  });

  it('freezes the baseline when avatars appear and grants 0.06 ms per avatar', () => {
    const budget = new GpuBudget({ slackMs: 0.5, slackFraction: 0.25 });
    for (let i = 0; i < 5; i++) budget.update(2, 0);
    const idle = budget.budgetFor(0);
    expect(idle).toBeCloseTo(2 + 0.5, 5);
    let reading = budget.update(40, 100); // a crowd of 100 costing 38 ms more: over budget
    expect(reading.baselineMs).toBeCloseTo(2, 5); // frozen: the crowd's cost does not move it
    expect(reading.budgetMs).toBeCloseTo(idle + 6, 5);
    expect(reading.state).toBe('over');
    reading = budget.update(7, 100);
    expect(reading.state).toBe('pass');
    expect(reading.message).toMatch(/^PASS 7\.00 \/ 8\.50 ms$/);
    // Back to zero avatars: the baseline tracks again (fast EMA).
    reading = budget.update(4, 0);
    expect(reading.tracking).toBe(true);
    expect(reading.baselineMs).toBeCloseTo(2 + 0.3 * 2, 5);
  });

  it('says it is unavailable without timestamp queries instead of inventing numbers', () => {
    const reading = new GpuBudget().update(null, 50);
    expect(reading).toMatchObject({ state: 'unavailable', gpuMs: null, budgetMs: null });
    expect(reading.message).toMatch(/no GPU timestamp queries/);
  });

  it('says when a crowd appeared before any idle measurement', () => {
    expect(new GpuBudget().update(12, 30).state).toBe('uncalibrated');
  });
});

describe('bone path choice', () => {
  it('uses storage buffers on WebGPU and textures where vertex storage buffers are missing', () => {
    expect(chooseBonePath({ backend: 'WebGPU' }).path).toBe('storage');
    expect(chooseBonePath({ backend: 'WebGPU', compatibilityMode: true })).toMatchObject({ path: 'texture' });
    expect(chooseBonePath({ backend: 'WebGPU', maxVertexStorageBuffers: 1 }).reason).toMatch(/allows 1 vertex-stage storage buffers/);
    expect(chooseBonePath({ backend: 'WebGL2' }, 'storage')).toMatchObject({
      path: 'texture',
      reason: expect.stringMatching(/WebGL2 cannot read storage buffers/),
    });
    expect(chooseBonePath({ backend: 'WebGPU', maxVertexStorageBuffers: 8 }, 'texture').path).toBe('texture');
  });
});

describe('crowd HUD rows', () => {
  it('reads everything from the published stats', () => {
    const rows = crowdHudRows({
      template: 'mannequin',
      path: 'texture',
      pathReason: '',
      pieces: 3,
      bones: 64,
      drawCallsPerPass: 3,
      agents: 500,
      visible: 420,
      live: 24,
      gpu: 400,
      culled: 80,
      reasons: { 'gpu: no procedural control': 400, 'live: look-at': 20, 'culled: outside the view': 80 },
      liveUpdates: 9,
      animMs: 1.2,
      animMsAvg: 1.5,
      uploadBytes: 4096,
      liveBytes: 2048,
      instanceBytes: 2048,
      poseBytes: 1024,
      animBytes: 1024,
      gpuBytes: 1,
      bakedBytes: 1 << 20,
      bakedPrecision: 'half',
      liveCapacity: 32,
      instanceCapacity: 512,
      bakedRows: 329,
      bakedFps: 30,
      clips: 6,
      grows: 0,
      budget: { state: 'over', gpuMs: 9, baselineMs: 1, budgetMs: 5, tracking: false, message: 'OVER 9.00 / 5.00 ms' },
    });
    const byLabel = Object.fromEntries(rows.map((r) => [r.label, r]));
    expect(byLabel['GPU / live / culled']!.value).toBe('400 / 24 / 80');
    expect(byLabel['  live · look-at']!.value).toBe('20');
    expect(byLabel['  gpu · no procedural control']!.value).toBe('400');
    expect(byLabel['baked clips']!.value).toBe('6 clips, 329 frames @ 30 fps, 1.00 MB (half)');
    expect(byLabel['bone path']!.value).toBe('texture');
    expect(byLabel['upload/frame']!.value).toBe('4.0 KB (9.8 B/avatar)');
    expect(byLabel['gpu budget']).toMatchObject({ value: 'OVER 9.00 / 5.00 ms', tone: 'bad' });
    expect(formatBytes(3 * 1024 * 1024)).toBe('3.00 MB');
  });
});

describe('SyntheticPeers', () => {
  const ground = (x: number, z: number): number => 0.1 * x + 0.05 * z;
  it('is deterministic for a seed and stays on walkable ground inside its area', () => {
    const make = (): SyntheticPeers => new SyntheticPeers({ seed: 3, radius: 20, centerX: 5, centerZ: -5, ground, walkable: (x) => x > 0 });
    const a = make();
    const b = make();
    a.resize(200);
    b.resize(200);
    for (let i = 0; i < 300; i++) {
      a.step(1 / 30);
      b.step(1 / 30);
    }
    expect(a.peers).toEqual(b.peers);
    for (const peer of a.peers) {
      expect(Math.hypot(peer.x - 5, peer.z + 5)).toBeLessThan(20.5);
      expect(peer.x).toBeGreaterThan(-0.5);
      expect(peer.y).toBeCloseTo(ground(peer.x, peer.z), 5);
    }
    const activities = new Set(a.peers.map((p) => p.activity));
    expect(activities).toEqual(new Set(['walk', 'idle', 'dance']));
  });

  it('walks at walking speed, facing where it goes; stands still when not moving', () => {
    const peers = new SyntheticPeers({ seed: 1, walkShare: 1, danceShare: 0 });
    peers.resize(20);
    const before = peers.peers.map((p) => ({ x: p.x, z: p.z }));
    peers.step(0.5);
    peers.peers.forEach((p, i) => {
      const moved = Math.hypot(p.x - before[i]!.x, p.z - before[i]!.z);
      expect(moved).toBeLessThanOrEqual(1.45 * 0.5 + 1e-6);
    });
    peers.moving = false;
    const frozen = peers.peers.map((p) => [p.x, p.z]);
    peers.step(1);
    expect(peers.peers.map((p) => [p.x, p.z])).toEqual(frozen);
    expect(() => peers.resize(-1)).toThrow(/non-negative/);
    expect(turnTowards(3, -3, 0.1)).toBeCloseTo(3.1);
  });
});

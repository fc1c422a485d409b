import { describe, expect, it } from 'vitest';
import { Mulberry32 } from '../../../src/core/rng.ts';
import { generateTerrain } from '../../../src/world/terrain/generate.ts';
import { loadPresets } from '../../../src/scatter/preset.ts';
import { BUILTIN_PRESET_DATA } from '../../../src/scatter/presets/index.ts';
import { BrushEventError, ScatterSession, type BrushEvent, type BrushRecording } from '../../../src/scatter/session.ts';

const ground = generateTerrain();
const presets = new Map(loadPresets(BUILTIN_PRESET_DATA).presets.map((p) => [p.id, p]));
const propsIn = (category: string): readonly string[] => [`${category}-a`, `${category}-b`];

/** A random but seeded brush session: preset changes, paint strokes and erasures all over the map. */
function randomEvents(seed: number, count: number): BrushEvent[] {
  const rng = new Mulberry32(seed);
  const ids = [...presets.keys()];
  const events: BrushEvent[] = [{ kind: 'preset', presetId: ids[0]! }];
  for (let i = 0; i < count; i++) {
    const roll = rng.next();
    const x = rng.range(-240, 240);
    const z = rng.range(-240, 240);
    if (roll < 0.1) events.push({ kind: 'preset', presetId: ids[rng.int(ids.length)]! });
    else if (roll < 0.25) events.push({ kind: 'erase', x, z, radius: rng.range(3, 15) });
    else events.push({ kind: 'paint', x, z, radius: rng.range(4, 16) });
  }
  return events;
}

// Generous timeout: these run real meshoptimizer/three work on a shared two-core machine.
describe('scatter session', { timeout: 30_000 }, () => {
  it('replays (seed, brush events) exactly, erasures included', () => {
    const session = new ScatterSession({ seed: 42, ground, propsIn, presets });
    for (const event of randomEvents(5, 120)) session.apply(event);
    expect(session.instances.size).toBeGreaterThan(300);
    const recording = JSON.parse(JSON.stringify(session.recording())) as BrushRecording; // through JSON, as saved
    const replayed = ScatterSession.replay(recording, { ground, propsIn, presets });
    expect(replayed.snapshot()).toEqual(session.snapshot());
    expect(replayed.rejections).toEqual(session.rejections);
  });

  it('gives a different forest for a different seed', () => {
    const events = randomEvents(6, 40);
    const a = new ScatterSession({ seed: 1, ground, propsIn, presets });
    const b = new ScatterSession({ seed: 2, ground, propsIn, presets });
    for (const e of events) {
      a.apply(e);
      b.apply(e);
    }
    expect(a.snapshot()).not.toEqual(b.snapshot());
  });

  it('erases exactly the instances inside the disk', () => {
    const session = new ScatterSession({ seed: 3, ground, propsIn, presets });
    session.apply({ kind: 'preset', presetId: 'meadow' });
    session.apply({ kind: 'paint', x: 0, z: 0, radius: 15 });
    const before = [...session.instances.values()];
    const { removed } = session.apply({ kind: 'erase', x: 5, z: 0, radius: 6 });
    const inside = before.filter((p) => Math.hypot(p.x - 5, p.z) <= 6);
    expect(inside.length).toBeGreaterThan(0);
    expect(removed.map((p) => p.id).sort((a, b) => a - b)).toEqual(inside.map((p) => p.id).sort((a, b) => a - b));
    expect(session.instances.size).toBe(before.length - inside.length);
  });

  it('evicts the oldest instances first past maxInstances, and that replays too', () => {
    const probe = new ScatterSession({ seed: 8, ground, propsIn, presets });
    probe.apply({ kind: 'preset', presetId: 'meadow' });
    const limit = probe.apply({ kind: 'paint', x: 0, z: 0, radius: 14 }).added.length + 20;
    const session = new ScatterSession({ seed: 8, ground, propsIn, presets, maxInstances: limit });
    session.apply({ kind: 'preset', presetId: 'meadow' });
    const first = session.apply({ kind: 'paint', x: 0, z: 0, radius: 14 }).added;
    expect(first.length).toBe(limit - 20);
    const second = session.apply({ kind: 'paint', x: 60, z: 0, radius: 14 });
    expect(second.added.length).toBeGreaterThan(40);
    expect(session.instances.size).toBe(limit);
    const evicted = second.removed.map((p) => p.id);
    expect(evicted.length).toBe(second.added.length - 20);
    expect(evicted).toEqual(first.slice(0, evicted.length).map((p) => p.id));
    const replayed = ScatterSession.replay(session.recording(), { ground, propsIn, presets, maxInstances: limit });
    expect(replayed.snapshot()).toEqual(session.snapshot());
  });

  it('refuses events that cannot apply, and does not record them', () => {
    const session = new ScatterSession({ seed: 1, ground, propsIn, presets });
    expect(() => session.apply({ kind: 'paint', x: 0, z: 0, radius: 5 })).toThrow(BrushEventError);
    expect(() => session.apply({ kind: 'preset', presetId: 'jungle' })).toThrow(/unknown preset "jungle"/);
    session.apply({ kind: 'preset', presetId: 'beach' });
    expect(() => session.apply({ kind: 'paint', x: Number.NaN, z: 0, radius: 5 })).toThrow(/finite/);
    expect(() => session.apply({ kind: 'erase', x: 0, z: 0, radius: -1 })).toThrow(/radius > 0/);
    expect(session.recording().events).toEqual([{ kind: 'preset', presetId: 'beach' }]);
    expect(() => ScatterSession.replay({ version: 2 as 1, seed: 1, events: [] }, { ground, propsIn, presets })).toThrow(/version/);
  });
});

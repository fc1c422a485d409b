import { describe, expect, it } from 'vitest';
import { loadPresets } from '../../../src/scatter/preset.ts';
import { BUILTIN_PRESET_DATA } from '../../../src/scatter/presets/index.ts';
import { ScatterSession, type BrushEvent } from '../../../src/scatter/session.ts';
import {
  editCellAt,
  editsRoomName,
  parseEditsMessage,
  parseEditsRoom,
  strokeOutsideCell,
  strokeSeed,
} from '../../../src/scatter/shared-edits.ts';
import { generateTerrain } from '../../../src/world/terrain/generate.ts';

const ground = generateTerrain();
const presets = new Map(loadPresets(BUILTIN_PRESET_DATA).presets.map((p) => [p.id, p]));
const propsIn = (category: string): readonly string[] => [`${category}-a`, `${category}-b`];

const stroke = (id: string, x: number, z: number): BrushEvent[] => [
  { kind: 'preset', presetId: 'mixed-forest' },
  { kind: 'reseed', seed: strokeSeed(id) },
  { kind: 'paint', x, z, radius: 8 },
  { kind: 'paint', x: x + 4, z, radius: 8 },
];

describe('shared scatter edits', () => {
  it('a reseeded stroke places the same things whatever was painted before it elsewhere', () => {
    const placed = (before: BrushEvent[]) => {
      const session = new ScatterSession({ seed: 1, ground, propsIn, presets });
      for (const event of [...before, ...stroke('stroke-b-1', 40, -40)]) session.apply(event);
      return [...session.instances.values()].filter((p) => p.x > 20).map((p) => [p.propId, p.x, p.z, p.scale, p.yaw]);
    };
    const alone = placed([]);
    expect(alone.length).toBeGreaterThan(3);
    expect(placed(stroke('stroke-a-1', -80, 60))).toEqual(alone);
    expect(placed([...stroke('stroke-a-2', -120, 90), ...stroke('stroke-a-3', -60, 0)])).toEqual(alone);
    // Without the reseed, what came before changes it.
    const plain = (before: BrushEvent[]) => {
      const session = new ScatterSession({ seed: 1, ground, propsIn, presets });
      for (const event of [...before, ...stroke('stroke-b-1', 40, -40).filter((e) => e.kind !== 'reseed')]) session.apply(event);
      return [...session.instances.values()].filter((p) => p.x > 20).map((p) => [p.propId, p.x, p.z]);
    };
    expect(plain(stroke('stroke-a-1', -80, 60))).not.toEqual(plain([]));
  });

  it('validates messages with one schema and names the bad field', () => {
    expect(parseEditsMessage({ type: 'stroke', id: 'abcdef', events: [{ kind: 'paint', x: 1, z: 2, radius: 3 }] })).toMatchObject({
      ok: true,
    });
    expect(parseEditsMessage({ type: 'undo', id: 'abcdef' })).toMatchObject({ ok: true });
    const bad = parseEditsMessage({ type: 'stroke', id: 'abcdef', events: [{ kind: 'paint', x: Number.NaN, z: 2, radius: 3 }] });
    expect(bad).toMatchObject({ ok: false, problem: expect.stringContaining('events.0.x') });
    expect(
      parseEditsMessage({ type: 'stroke', id: 'abcdef', events: Array(97).fill({ kind: 'paint', x: 1, z: 1, radius: 1 }) }),
    ).toMatchObject({ ok: false, problem: expect.stringContaining('at most 96') });
    expect(parseEditsMessage({ type: 'stroke', id: 'abcdef', events: [{ kind: 'reseed', seed: -1 }] }).ok).toBe(false);
    expect(
      parseEditsMessage({ type: 'stroke', id: 'abcdef', events: [{ kind: 'paint', x: 1, z: 1, radius: 1, extra: 'dropped' }] }),
    ).toEqual({ ok: true, message: { type: 'stroke', id: 'abcdef', events: [{ kind: 'paint', x: 1, z: 1, radius: 1 }] } });
  });

  it('names cells and checks that a stroke stays in its cell', () => {
    expect(editCellAt(-0.5, 63.9)).toEqual({ x: -1, z: 0 });
    expect(parseEditsRoom(editsRoomName(7, { x: -3, z: 2 }))).toEqual({ seed: 7, cell: { x: -3, z: 2 } });
    expect(parseEditsRoom('world:edits:7:a:2')).toBeNull();
    expect(strokeOutsideCell([{ kind: 'paint', x: 10, z: 63, radius: 30 }], { x: 0, z: 0 })).toBeNull();
    expect(strokeOutsideCell([{ kind: 'paint', x: 10, z: 64, radius: 1 }], { x: 0, z: 0 })).toMatch(/outside cell 0:0/);
  });
});

describe('saved recordings', () => {
  it('accept what Save recording writes and name the bad field otherwise', async () => {
    const { parseRecording } = await import('../../../src/scatter/local-store.ts');
    const session = new ScatterSession({ seed: 3, ground, propsIn, presets });
    for (const event of stroke('recorded-1', 10, 10)) session.apply(event);
    const written = JSON.parse(JSON.stringify(session.recording()));
    expect(parseRecording(written)).toEqual({ ok: true, recording: written });
    expect(parseRecording({ ...written, version: 2 })).toMatchObject({ ok: false, problem: expect.stringContaining('version') });
    expect(parseRecording({ ...written, events: [{ kind: 'paint', x: 'a', z: 1, radius: 2 }] })).toMatchObject({
      ok: false,
      problem: expect.stringContaining('events.0.x'),
    });
  });
});

import { describe, expect, it } from 'vitest';
import { loadPresets } from '../../../src/scatter/preset.ts';
import { BUILTIN_PRESET_DATA } from '../../../src/scatter/presets/index.ts';
import { ScatterSession, type BrushEvent } from '../../../src/scatter/session.ts';
import {
  decodeSnapshot,
  DEFAULT_EDIT_WORLD,
  editCellAt,
  editsRoomName,
  editsRoomProblem,
  editWorldFrom,
  encodeSnapshot,
  footprintCells,
  parseEditsMessage,
  parseEditsRoom,
  strokeFootprint,
  strokeProblem,
  strokeSeed,
  type SharedStroke,
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

  it('names cells of the worlds that exist, one spelling each', () => {
    expect(editCellAt(-0.5, 63.9)).toEqual({ x: -1, z: 0 });
    expect(parseEditsRoom(editsRoomName(7, { x: -3, z: 2 }))).toEqual({ seed: 7, cell: { x: -3, z: 2 } });
    expect(parseEditsRoom('world:edits:7:a:2')).toBeNull();
    expect(parseEditsRoom('world:edits:7:03:2')).toBeNull();
    expect(parseEditsRoom('world:edits:7:-0:2')).toBeNull();
    expect(editsRoomProblem('world:edits:1:-4:3', DEFAULT_EDIT_WORLD)).toBeNull();
    expect(editsRoomProblem('world:edits:1:4:0', DEFAULT_EDIT_WORLD)).toMatch(/off the map \(cells run from -4 to 3/);
    expect(editsRoomProblem('world:edits:1:0:-5', DEFAULT_EDIT_WORLD)).toMatch(/off the map/);
    expect(editsRoomProblem('world:edits:4294967295:0:0', DEFAULT_EDIT_WORLD)).toMatch(/no world has seed 4294967295/);
    expect(editWorldFrom(undefined, undefined)).toEqual(DEFAULT_EDIT_WORLD);
    expect(editWorldFrom('', 'nonsense')).toEqual(DEFAULT_EDIT_WORLD);
    expect(editWorldFrom('1, 9,x', '4160')).toEqual({ seeds: [1, 9], halfExtentM: 4160 });
  });

  it('stores a stroke in every cell its disks reach, from its home, up to three cells across', () => {
    const paint = (x: number, z: number, radius = 2) => ({ kind: 'paint' as const, x, z, radius });
    const across = [paint(-6, 10), paint(6, 10)];
    const footprint = strokeFootprint(across)!;
    expect(footprintCells(footprint, editCellAt(-6, 10))).toEqual([
      { x: -1, z: 0 },
      { x: 0, z: 0 },
    ]);
    // The spawn's corner: one dab reaches four cells.
    expect(footprintCells(strokeFootprint([paint(1, 1, 3)])!, { x: 0, z: 0 })).toHaveLength(4);
    expect(strokeProblem(across, { x: -1, z: 0 }, DEFAULT_EDIT_WORLD)).toBeNull();
    expect(strokeProblem(across, { x: 0, z: 0 }, DEFAULT_EDIT_WORLD)).toMatch(/outside cell 0:0/);
    expect(strokeProblem([paint(10, 10), paint(200, 10)], { x: 0, z: 0 }, DEFAULT_EDIT_WORLD)).toMatch(/reaches 4 cells across/);
    expect(strokeProblem([paint(10, 10), paint(250, 10)], { x: 0, z: 0 }, { seeds: [1], halfExtentM: 4160 })).toMatch(/reaches 4/);
    expect(strokeProblem([paint(-250, 10), paint(-260, 10)], { x: -4, z: 0 }, DEFAULT_EDIT_WORLD)).toMatch(/off the map/);
    expect(strokeProblem([{ kind: 'preset', presetId: 'meadow' }], { x: 0, z: 0 }, DEFAULT_EDIT_WORLD)).toMatch(/needs a paint/);
    expect(
      strokeProblem(
        Array.from({ length: 13 }, () => paint(10, 10, 40)),
        { x: 0, z: 0 },
        DEFAULT_EDIT_WORLD,
      ),
    ).toMatch(/costs/);
    // A footprint off the map keeps its cells on it.
    expect(footprintCells(strokeFootprint([paint(-255, 10, 4)])!, { x: -4, z: 0 }, DEFAULT_EDIT_WORLD)).toEqual([{ x: -4, z: 0 }]);
  });

  it('sends a snapshot in binary that reads back exactly, in a fraction of the JSON', () => {
    const strokes: SharedStroke[] = Array.from({ length: 40 }, (_, s) => ({
      id: `stroke-${s}-${'x'.repeat(s % 7)}`,
      author: s % 3 ? 'a1b2c3d4e5f60718' : 'ffeeddccbbaa9988',
      seq: s + 1,
      at: 1_764_600_000_000 + s * 1234.5,
      events: [
        { kind: 'preset', presetId: s % 2 ? 'meadow' : 'mixed-forest' },
        { kind: 'reseed', seed: strokeSeed(`stroke-${s}`) },
        ...Array.from({ length: 90 }, (_, i) => ({
          kind: (i % 9 ? 'paint' : 'erase') as 'paint' | 'erase',
          x: -4160 + (s * 97 + i * 13.015625) / 1,
          z: 4100.984375 - i * 0.015625,
          radius: 0.25 + (i % 40) * 0.984375,
        })),
      ],
    }));
    const bytes = encodeSnapshot(strokes);
    expect(decodeSnapshot(bytes)).toEqual(strokes);
    expect(bytes.byteLength * 4).toBeLessThan(JSON.stringify(strokes).length);
    expect(decodeSnapshot(encodeSnapshot([]))).toEqual([]);
    expect(() => decodeSnapshot(bytes.slice(0, bytes.length - 3))).toThrow(/ends early/);
    expect(() => decodeSnapshot(new Uint8Array([9, 0, 0]))).toThrow(/version 9/);
  });

  it('snaps positions and radii to the 1/64 m grid, so JSON and binary carry the same numbers', () => {
    const parsed = parseEditsMessage({ type: 'stroke', id: 'snapped', events: [{ kind: 'paint', x: 10.3, z: -0.001, radius: 4.01 }] });
    expect(parsed).toEqual({
      ok: true,
      message: { type: 'stroke', id: 'snapped', events: [{ kind: 'paint', x: 10.296875, z: 0, radius: 4.015625 }] },
    });
    const z = (parsed as { message: { events: Array<{ z: number }> } }).message.events[0]!.z;
    expect(Object.is(z, -0)).toBe(false);
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

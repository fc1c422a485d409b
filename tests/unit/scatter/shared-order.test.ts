import { describe, expect, it } from 'vitest';
import { Mulberry32 } from '../../../src/core/rng.ts';
import { loadPresets } from '../../../src/scatter/preset.ts';
import { BUILTIN_PRESET_DATA } from '../../../src/scatter/presets/index.ts';
import { CELL_ID_SPAN, CellForest, CellStrokes, type ForestChange } from '../../../src/scatter/shared-cell.ts';
import {
  editCellKey,
  footprintCells,
  snapEdit,
  strokeFootprint,
  strokeHome,
  strokeSeed,
  type SharedEvent,
  type SharedStroke,
} from '../../../src/scatter/shared-edits.ts';
import { generateTerrain } from '../../../src/world/terrain/generate.ts';

const ground = generateTerrain();
const presets = new Map(loadPresets(BUILTIN_PRESET_DATA).presets.map((p) => [p.id, p]));
const propsIn = (category: string): readonly string[] => [`${category}-a`, `${category}-b`];

/** A drag from (x0, z0) to (x1, z1): preset, reseed, dabs every 3 m (snapped as the brush sends them). */
function drag(id: string, preset: string, x0: number, z0: number, x1: number, z1: number, radius = 6, kind: 'paint' | 'erase' = 'paint') {
  const events: SharedEvent[] = [
    { kind: 'preset', presetId: preset },
    { kind: 'reseed', seed: strokeSeed(id) },
  ];
  const steps = Math.max(1, Math.round(Math.hypot(x1 - x0, z1 - z0) / 3));
  for (let i = 0; i <= steps; i++)
    events.push({ kind, x: snapEdit(x0 + ((x1 - x0) * i) / steps), z: snapEdit(z0 + ((z1 - z0) * i) / steps), radius });
  return { id, events };
}

/** The server's side, as edits-room.ts does it: a stroke stored in every cell of its footprint, each numbering its copy. */
class Cells {
  readonly stored = new Map<string, SharedStroke[]>();
  /** Every message each cell sent, in order, as a visitor joined from the start would get them. */
  readonly log = new Map<string, Array<{ type: 'stroke'; stroke: SharedStroke } | { type: 'undo'; id: string }>>();
  private readonly seqs = new Map<string, number>();
  private clock = 1_000;

  submit(stroke: { id: string; events: SharedEvent[] }, author = 'a'): void {
    const home = strokeHome(stroke.events)!;
    const at = this.clock++;
    for (const cell of footprintCells(strokeFootprint(stroke.events)!, home)) {
      const key = editCellKey(cell);
      const seq = (this.seqs.get(key) ?? 0) + 1;
      this.seqs.set(key, seq);
      const copy: SharedStroke = { id: stroke.id, author, seq, at, events: stroke.events };
      this.list(key).push(copy);
      this.messages(key).push({ type: 'stroke', stroke: copy });
    }
  }

  remove(id: string): void {
    for (const [key, strokes] of this.stored) {
      const index = strokes.findIndex((s) => s.id === id);
      if (index < 0) continue;
      strokes.splice(index, 1);
      this.messages(key).push({ type: 'undo', id });
    }
  }

  private list(key: string): SharedStroke[] {
    let list = this.stored.get(key);
    if (!list) this.stored.set(key, (list = []));
    return list;
  }

  private messages(key: string) {
    let log = this.log.get(key);
    if (!log) this.log.set(key, (log = []));
    return log;
  }
}

/** A visitor: one CellStrokes and CellForest per cell, ids from its own slots (cells get slots in the order they load). */
class Visitor {
  readonly cells = new Map<string, { strokes: CellStrokes; forest: CellForest }>();
  private clock = 0;
  private readonly rng: Mulberry32;
  constructor(seed: number) {
    this.rng = new Mulberry32(seed);
  }

  cell(key: string) {
    let cell = this.cells.get(key);
    if (!cell) {
      const [x, z] = key.split(':').map(Number) as [number, number];
      const firstId = (1 << 29) + this.cells.size * CELL_ID_SPAN;
      cell = { strokes: new CellStrokes(), forest: new CellForest({ cell: { x, z }, ground, propsIn, presets, firstId }) };
      this.cells.set(key, cell);
    }
    return cell;
  }

  snapshot(key: string, strokes: readonly SharedStroke[]): void {
    const cell = this.cell(key);
    cell.strokes.replace(strokes);
    cell.forest.setStrokes(cell.strokes.list());
  }

  message(key: string, message: { type: 'stroke'; stroke: SharedStroke } | { type: 'undo'; id: string }): void {
    const cell = this.cell(key);
    if (message.type === 'stroke') cell.strokes.add(message.stroke);
    else cell.strokes.remove(message.id);
    cell.forest.setStrokes(cell.strokes.list());
  }

  /** Some work in every cell, in slices of a random few clock ticks (a slow, busy page). */
  pump(): void {
    for (const { forest } of this.cells.values()) {
      const out: ForestChange = { added: [], removed: [] };
      const budget = 1 + this.rng.int(40);
      forest.step(this.clock + budget, () => this.clock++, out);
    }
  }

  settle(): void {
    for (let i = 0; i < 1e6 && [...this.cells.values()].some((c) => c.forest.busy); i++) this.pump();
  }

  hash(): string {
    return [...this.cells.keys()]
      .sort()
      .map((key) => `${key}=${this.cells.get(key)!.forest.hash()}`)
      .join(' ');
  }

  instances(): number {
    return [...this.cells.values()].reduce((n, c) => n + c.forest.drawn.size, 0);
  }
}

function shuffle<T>(items: readonly T[], rng: Mulberry32): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

/** Strokes around the spawn, the corner of four cells: drags across x = 0 and z = 0, overlapping ones 6 m either side of a border, an erase across it. */
function paintSpawn(cells: Cells): void {
  cells.submit(drag('across-x-0001', 'mixed-forest', -14, 10, 16, 12));
  cells.submit(drag('left-of-x-0002', 'mixed-forest', -6, -4, -6, 20, 7), 'b');
  cells.submit(drag('right-of-x-003', 'meadow', 6, -4, 6, 20, 7), 'c');
  cells.submit(drag('across-z-0004', 'meadow', -20, -12, -18, 14));
  cells.submit(drag('corner-00005', 'mixed-forest', -9, -9, 9, 9, 10), 'b');
  cells.submit(drag('erase-across-6', 'mixed-forest', -3, 2, 3, 8, 3, 'erase'), 'c');
  cells.submit(drag('far-east-00007', 'lake-shore', 40, -30, 70, -28, 5));
}

describe('shared edits: one forest for everyone', () => {
  it('gives the same instances whatever order the cells and their messages arrive in, and however the work is sliced', () => {
    const server = new Cells();
    paintSpawn(server);
    server.remove('across-z-0004');
    server.submit(drag('after-undo-0008', 'meadow', -30, 30, -2, 34, 5), 'b');

    // The reference: every cell's snapshot at once, settled in one go.
    const reference = new Visitor(1);
    for (const [key, strokes] of server.stored) reference.snapshot(key, strokes);
    reference.settle();
    expect(reference.instances()).toBeGreaterThan(150);
    expect(reference.cells.size).toBeGreaterThanOrEqual(5);

    for (let trial = 0; trial < 12; trial++) {
      const rng = new Mulberry32(100 + trial);
      const visitor = new Visitor(trial);
      // Live from the start: each cell's messages in its order (one socket per cell), the cells interleaved at random, work in between.
      const queues = shuffle([...server.log.entries()], rng).map(([key, messages]) => ({ key, messages: [...messages] }));
      for (const { key } of queues) visitor.snapshot(key, []);
      while (queues.some((q) => q.messages.length > 0)) {
        const open = queues.filter((q) => q.messages.length > 0);
        const queue = open[rng.int(open.length)]!;
        visitor.message(queue.key, queue.messages.shift()!);
        if (rng.next() < 0.5) visitor.pump();
      }
      visitor.settle();
      expect(visitor.hash(), `trial ${trial}`).toBe(reference.hash());

      // A late joiner and a reloader: snapshots in a shuffled order, some cells twice (a reconnect), half-done work thrown away.
      const late = new Visitor(50 + trial);
      for (const [key, strokes] of shuffle([...server.stored.entries()], rng)) {
        late.snapshot(key, strokes.slice(0, rng.int(strokes.length + 1)));
        late.pump();
        late.snapshot(key, shuffle(strokes, rng));
        if (rng.next() < 0.5) late.pump();
      }
      late.settle();
      expect(late.hash(), `late joiner, trial ${trial}`).toBe(reference.hash());
    }
  });

  it('depends on each cell’s order: swapping two overlapping strokes in a cell changes its forest, and only that cell', () => {
    const server = new Cells();
    paintSpawn(server);
    const reference = new Visitor(1);
    for (const [key, strokes] of server.stored) reference.snapshot(key, strokes);
    reference.settle();
    const swapped = new Visitor(2);
    for (const [key, strokes] of server.stored) {
      if (key !== '0:0') {
        swapped.snapshot(key, strokes);
        continue;
      }
      // right-of-x (meadow) and corner (mixed forest) overlap in cell 0:0: the other order.
      const seqOf = (id: string) => strokes.find((s) => s.id === id)!.seq;
      const a = seqOf('right-of-x-003');
      const b = seqOf('corner-00005');
      swapped.snapshot(
        key,
        strokes.map((s) => (s.seq === a ? { ...s, seq: b } : s.seq === b ? { ...s, seq: a } : s)),
      );
    }
    swapped.settle();
    const cellHashes = (v: Visitor) => new Map([...v.cells].map(([key, c]) => [key, c.forest.hash()]));
    const before = cellHashes(reference);
    const after = cellHashes(swapped);
    expect(after.get('0:0')).not.toBe(before.get('0:0'));
    for (const key of before.keys()) if (key !== '0:0') expect(after.get(key), key).toBe(before.get(key));
  });

  it('places a border-crossing stroke in each cell it reaches, each part inside its own cell', () => {
    const server = new Cells();
    server.submit(drag('across-x-0001', 'mixed-forest', -14, 10, 16, 12));
    expect([...server.stored.keys()].sort()).toEqual(['-1:0', '0:0']);
    const visitor = new Visitor(3);
    for (const [key, strokes] of server.stored) visitor.snapshot(key, strokes);
    visitor.settle();
    const left = [...visitor.cells.get('-1:0')!.forest.drawn.values()];
    const right = [...visitor.cells.get('0:0')!.forest.drawn.values()];
    expect(left.length).toBeGreaterThan(5);
    expect(right.length).toBeGreaterThan(5);
    expect(left.every((p) => p.x < -0.5)).toBe(true);
    expect(right.every((p) => p.x >= 0.5)).toBe(true);
  });

  it('keeps a visitor’s own stroke where it painted it when the cell stores it next, and recomputes when another came first', () => {
    const own = drag('own-stroke-01', 'meadow', 10, 10, 30, 12);
    const other = drag('other-stroke-1', 'mixed-forest', 12, 8, 28, 14);
    const visitor = new Visitor(4);
    const cell = visitor.cell('0:0');
    cell.strokes.addPending(own);
    cell.forest.setStrokes(cell.strokes.list());
    visitor.settle();
    const rebuilds = cell.forest.rebuilds;
    visitor.message('0:0', { type: 'stroke', stroke: { ...own, author: 'me', seq: 1, at: 1 } });
    visitor.settle();
    expect(cell.forest.rebuilds).toBe(rebuilds); // confirmed in place: nothing recomputed
    const alone = cell.forest.hash();
    // Another visitor's stroke reached the cell first: seq 1 is theirs, ours is 2.
    const racer = new Visitor(5);
    const raced = racer.cell('0:0');
    raced.strokes.addPending(own);
    raced.forest.setStrokes(raced.strokes.list());
    racer.settle();
    racer.message('0:0', { type: 'stroke', stroke: { ...other, author: 'them', seq: 1, at: 1 } });
    racer.message('0:0', { type: 'stroke', stroke: { ...own, author: 'me', seq: 2, at: 2 } });
    racer.settle();
    expect(raced.forest.rebuilds).toBeGreaterThan(0);
    const fresh = new Visitor(6);
    fresh.snapshot('0:0', [
      { ...other, author: 'them', seq: 1, at: 1 },
      { ...own, author: 'me', seq: 2, at: 2 },
    ]);
    fresh.settle();
    expect(racer.hash()).toBe(fresh.hash());
    expect(racer.hash()).not.toBe(`0:0=${alone}`);
  });
});

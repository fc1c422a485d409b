import { withDefaults } from '../core/options.ts';
import { PlacementEngine, type Dab, type GroundSampler, type Placement } from './placement.ts';
import type { ScatterPreset } from './preset.ts';
import { EDIT_CELL_SIZE, editCellKey, strokeSeed, type EditCell, type SharedEvent, type SharedStroke } from './shared-edits.ts';

/**
 * One edits cell's forest, computed from the cell's strokes alone (pure: no three, no DOM).
 *
 * The rule every visitor follows, so everyone sees the same instances: a cell's instances are
 * what its strokes place inside the cell's square, applied in the cell's order (the server's
 * `seq`). Each stroke starts with no preset and the RNG at {@link strokeSeed} of its id, then runs
 * its events; a candidate outside the square (or within {@link CellForestOptions.edgeMargin} of
 * its edge) draws its numbers and is dropped, and spacing is checked against this cell's
 * instances only — across a border instances keep at least twice the margin apart, the rule the
 * generated regions use. A stroke that crosses a border is stored in every cell it reaches and
 * each computes its own part, so the same stroke gives the same instances whichever cells a
 * visitor has loaded and in whatever order they arrived.
 *
 * The work is resumable: {@link CellForest.step} runs until a deadline and returns, so a page can apply a
 * full cell in slices of a few milliseconds. When the order changes under the work done so far
 * (a stroke arrived between others, one was undone or evicted), the cell is computed again from
 * its first stroke in the background while the old instances stay drawn, then swapped in.
 */

/** Options of a {@link CellForest}. */
export interface CellForestOptions {
  /** The cell. */
  cell: EditCell;
  /** The ground placements are read from. */
  ground: GroundSampler;
  /** Prop ids per category, in a stable order that every visitor shares (the built-in props). */
  propsIn: (category: string) => readonly string[];
  /** Presets by id (validated). */
  presets: ReadonlyMap<string, ScatterPreset>;
  /** Id of the cell's first instance; the cell uses ids from here up ({@link CELL_ID_SPAN} of them). */
  firstId: number;
  /** Instances a cell keeps; past it its oldest go first. Default {@link CELL_MAX_INSTANCES}. */
  maxInstances?: number;
  /** Metres inside the cell's edge where nothing is placed. Default 0.5. */
  edgeMargin?: number;
}

/** A {@link CellForestOptions} with its defaults in: what a cell's runs are built from. */
type CellForestSettings = Required<CellForestOptions>;

/** Instances one cell keeps at most: 16 joined cells draw at most 65,536. */
export const CELL_MAX_INSTANCES = 4096;

/** Defaults of {@link CellForestOptions} (cell, ground, props, presets and first id have none). */
export const CELL_FOREST_DEFAULTS: Pick<CellForestSettings, 'maxInstances' | 'edgeMargin'> = {
  maxInstances: CELL_MAX_INSTANCES,
  edgeMargin: 0.5,
};

/** Ids one cell may use (placements counted over all its recomputations start again at its first id). */
export const CELL_ID_SPAN = 1 << 20;

/** A stroke as a cell applies it: its id and events (the last stroke's events may still grow, while it is painted). */
export interface ForestStroke {
  /** The stroke's id. */
  readonly id: string;
  /** Its events, in order. */
  readonly events: readonly SharedEvent[];
}

/** What a {@link CellForest.step} changed in the drawn instances: remove these ids, then draw these. */
export interface ForestChange {
  /** Instances to draw. */
  added: Placement[];
  /** Ids of instances to take away. */
  removed: number[];
}

/** Candidates run between two looks at the clock. */
const CANDIDATES_PER_CHECK = 48;

/** A pass over the cell's strokes in order: an engine and where it is. */
class Run {
  readonly engine: PlacementEngine;
  /** The strokes this run has started, in order (the last may be partly applied). */
  readonly strokes: ForestStroke[] = [];
  /** Events of each started stroke applied so far. */
  readonly applied: number[] = [];
  preset: ScatterPreset | null = null;
  dab: Dab | null = null;
  candidatesLeft = 0;
  /** Live ids in placement order, for the FIFO past maxInstances. */
  readonly order: number[] = [];
  head = 0;
  /** Candidates and events applied by this run (for the scheduler's figures). */
  work = 0;

  constructor(options: CellForestSettings) {
    const { cell, edgeMargin } = options;
    this.engine = new PlacementEngine({
      seed: 1,
      ground: options.ground,
      propsIn: options.propsIn,
      firstId: options.firstId,
      bounds: {
        minX: cell.x * EDIT_CELL_SIZE,
        minZ: cell.z * EDIT_CELL_SIZE,
        maxX: (cell.x + 1) * EDIT_CELL_SIZE,
        maxZ: (cell.z + 1) * EDIT_CELL_SIZE,
      },
      edgeMargin,
    });
  }
}

/**
 * One edits cell's forest: the instances its strokes place inside it, in the cell's order, computed in slices (see the file's comment).
 */
export class CellForest {
  /** The cell. */
  readonly cell: EditCell;
  /** The cell's key (`x:z`). */
  readonly key: string;
  /** The instances drawn for this cell (what {@link CellForest.step} has handed out), by id. */
  readonly drawn = new Map<number, Placement>();
  private readonly options: CellForestSettings;
  private target: ForestStroke[] = [];
  /** The run whose engine is what is drawn. */
  private live: Run;
  /** A run started over because the order changed; swapped in when it catches up. */
  private shadow: Run | null = null;
  /** Full recomputations started (the order changed under the work done). */
  rebuilds = 0;
  /** Work done so far, in units of one candidate or one event (what a slice's budget buys). */
  work = 0;

  constructor(options: CellForestOptions) {
    this.options = { ...options, ...withDefaults(CELL_FOREST_DEFAULTS, options) };
    this.cell = options.cell;
    this.key = editCellKey(options.cell);
    this.live = new Run(this.options);
  }

  /** The strokes in order (the cell's `seq` order, then this visitor's own not yet stored). */
  get strokes(): readonly ForestStroke[] {
    return this.target;
  }

  /** Sets the strokes in order. Work starts on the next {@link CellForest.step}. */
  setStrokes(strokes: readonly ForestStroke[]): void {
    this.target = [...strokes];
    const run = this.shadow ?? this.live;
    if (!follows(run, this.target)) {
      this.shadow = new Run(this.options);
      this.rebuilds++;
    }
  }

  /** True while some stroke or event is not applied yet (or a recomputation waits to be swapped in). */
  get busy(): boolean {
    const run = this.shadow ?? this.live;
    return this.shadow !== null || !atEnd(run, this.target);
  }

  /**
   * Works until `now() ≥ deadline` or nothing is left; appends what changed in the drawn
   * instances to `out`. Returns true when nothing is left.
   */
  step(deadline: number, now: () => number, out: ForestChange): boolean {
    const run = this.shadow ?? this.live;
    const added: Placement[] = [];
    const removed: Placement[] = [];
    while (now() < deadline) {
      if (!this.advance(run, added, removed)) break;
    }
    if (run === this.live) {
      const gone = new Set<number>();
      for (const placement of removed) {
        if (this.drawn.delete(placement.id)) out.removed.push(placement.id);
        else gone.add(placement.id); // placed and taken again within this step
      }
      for (const placement of added) {
        if (gone.has(placement.id)) continue;
        this.drawn.set(placement.id, placement);
        out.added.push(placement);
      }
    } else if (atEnd(run, this.target)) {
      this.swapIn(run, out);
    }
    return !this.busy;
  }

  /** Every instance drawn for this cell is removed (leaving the cell). */
  clear(out: ForestChange): void {
    for (const id of this.drawn.keys()) out.removed.push(id);
    this.drawn.clear();
    this.target = [];
    this.shadow = null;
    this.live = new Run(this.options);
  }

  /** A hash of the drawn instances (prop, position, scale, yaw, in placement order), to compare visitors. */
  hash(): string {
    const ids = [...this.drawn.keys()].sort((a, b) => a - b);
    let h = 0x811c9dc5;
    const scratch = new DataView(new ArrayBuffer(8));
    const mix = (n: number) => {
      h = Math.imul(h ^ (n & 0xff), 0x01000193);
      h = Math.imul(h ^ ((n >>> 8) & 0xff), 0x01000193);
      h = Math.imul(h ^ ((n >>> 16) & 0xff), 0x01000193);
      h = Math.imul(h ^ (n >>> 24), 0x01000193);
    };
    for (const id of ids) {
      const p = this.drawn.get(id)!;
      mix(id - this.options.firstId);
      for (let i = 0; i < p.propId.length; i++) mix(p.propId.charCodeAt(i));
      for (const value of [p.x, p.y, p.z, p.scale, p.yaw]) {
        scratch.setFloat64(0, value);
        mix(scratch.getUint32(0));
        mix(scratch.getUint32(4));
      }
    }
    return `${ids.length}:${(h >>> 0).toString(16).padStart(8, '0')}`;
  }

  /** One unit of work (a few candidates or one event, or the move to the next stroke); false when there is none. */
  private advance(run: Run, added: Placement[], removed: Placement[]): boolean {
    const engine = run.engine;
    if (run.candidatesLeft > 0) {
      const n = Math.min(CANDIDATES_PER_CHECK, run.candidatesLeft);
      const before = added.length;
      engine.runCandidates(run.dab!, run.preset!, n, added);
      for (let i = before; i < added.length; i++) run.order.push(added[i]!.id);
      run.candidatesLeft -= n;
      run.work += n;
      this.work += n;
      this.evictOverflow(run, removed);
      return true;
    }
    const s = run.strokes.length - 1;
    const stroke = s >= 0 ? run.strokes[s]! : null;
    if (stroke && run.applied[s]! < stroke.events.length) {
      const event = stroke.events[run.applied[s]!]!;
      run.applied[s]!++;
      run.work++;
      this.work++;
      this.apply(run, event, removed);
      return true;
    }
    const next = this.target[s + 1];
    if (!next) return false;
    // Each stroke stands alone: no preset carried over, and its own RNG start.
    run.strokes.push(next);
    run.applied.push(0);
    run.preset = null;
    engine.rng.setState(strokeSeed(next.id));
    return true;
  }

  private apply(run: Run, event: SharedEvent, removed: Placement[]): void {
    const engine = run.engine;
    switch (event.kind) {
      case 'preset':
        // A preset this visitor lacks places nothing, the same for everyone who lacks it.
        run.preset = this.options.presets.get(event.presetId) ?? null;
        break;
      case 'reseed':
        engine.rng.setState(event.seed);
        break;
      case 'paint': {
        if (!run.preset) break;
        const count = engine.startDab(event, run.preset);
        if (engine.reaches(event)) {
          run.dab = event;
          run.candidatesLeft = count;
        } else engine.skipCandidates(count);
        break;
      }
      case 'erase': {
        if (!engine.reaches(event)) break;
        for (const id of engine.idsWithin(event.x, event.z, event.radius)) {
          const placement = engine.remove(id);
          if (placement) removed.push(placement);
        }
        break;
      }
    }
  }

  private evictOverflow(run: Run, removed: Placement[]): void {
    const engine = run.engine;
    while (engine.instances.size > this.options.maxInstances && run.head < run.order.length) {
      const placement = engine.remove(run.order[run.head++]!);
      if (placement) removed.push(placement);
    }
    if (run.head > 4096 && run.head * 2 > run.order.length) {
      run.order.splice(0, run.head);
      run.head = 0;
    }
  }

  /** The recomputation caught up: hand out the difference and make it the live run. */
  private swapIn(run: Run, out: ForestChange): void {
    const next = run.engine.instances;
    for (const [id, placement] of this.drawn) {
      const now = next.get(id);
      if (!now || !samePlacement(now, placement)) {
        out.removed.push(id);
        this.drawn.delete(id);
      }
    }
    for (const [id, placement] of next) {
      if (this.drawn.has(id)) continue;
      out.added.push(placement);
      this.drawn.set(id, placement);
    }
    this.live = run;
    this.shadow = null;
  }
}

/** Whether the run's work so far is a prefix of `target`: the same strokes, each applied event unchanged. */
function follows(run: Run, target: readonly ForestStroke[]): boolean {
  if (run.strokes.length > target.length) return false;
  for (let i = 0; i < run.strokes.length; i++) {
    const done = run.strokes[i]!;
    const want = target[i]!;
    if (done === want) continue;
    if (done.id !== want.id) return false;
    const applied = run.applied[i]!;
    // A stroke that is not the run's last must be applied whole, so it may not have grown since.
    if (want.events.length < applied || (i < run.strokes.length - 1 && want.events.length !== applied)) return false;
    for (let e = 0; e < applied; e++) if (!sameEvent(done.events[e]!, want.events[e]!)) return false;
    // From here on the run reads the target's copy (the stored one replaces the painted one).
    run.strokes[i] = want;
  }
  return true;
}

function atEnd(run: Run, target: readonly ForestStroke[]): boolean {
  if (run.candidatesLeft > 0 || run.strokes.length !== target.length) return false;
  const last = run.strokes.length - 1;
  return last < 0 || run.applied[last] === target[last]!.events.length;
}

/** Whether two shared events are the same event (same kind and fields). */
export function sameEvent(a: SharedEvent, b: SharedEvent): boolean {
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'preset':
      return a.presetId === (b as typeof a).presetId;
    case 'reseed':
      return a.seed === (b as typeof a).seed;
    default: {
      const d = b as typeof a;
      return a.x === d.x && a.z === d.z && a.radius === d.radius;
    }
  }
}

function samePlacement(a: Placement, b: Placement): boolean {
  return a.propId === b.propId && a.x === b.x && a.y === b.y && a.z === b.z && a.scale === b.scale && a.yaw === b.yaw;
}

/**
 * The strokes of one cell as a visitor knows them: those the cell stored, in its `seq` order,
 * then this visitor's own that the cell has not confirmed yet (in the order they were painted),
 * less those undone here and not yet confirmed undone. Pure bookkeeping: whatever order messages
 * arrive in, {@link list} is the same once the same messages have arrived.
 */
export class CellStrokes {
  private confirmed: SharedStroke[] = [];
  private readonly byId = new Map<string, SharedStroke>();
  private readonly pending: ForestStroke[] = [];
  private readonly hidden = new Set<string>();

  /** The cell's strokes as its snapshot gives them (every earlier one forgotten; own pending ones kept unless stored). */
  replace(strokes: readonly SharedStroke[]): void {
    this.confirmed = [...strokes].sort((a, b) => a.seq - b.seq);
    this.byId.clear();
    for (const stroke of this.confirmed) this.byId.set(stroke.id, stroke);
    this.dropStoredPending();
  }

  /** A stroke the cell stored (a live one, or our own coming back). */
  add(stroke: SharedStroke): void {
    const known = this.byId.get(stroke.id);
    if (known) {
      if (known.seq === stroke.seq) return;
      this.confirmed.splice(this.confirmed.indexOf(known), 1);
    }
    let at = this.confirmed.length;
    while (at > 0 && this.confirmed[at - 1]!.seq > stroke.seq) at--;
    this.confirmed.splice(at, 0, stroke);
    this.byId.set(stroke.id, stroke);
    this.dropStoredPending();
  }

  /** A stroke the cell removed (undone, evicted), or our own refused. Returns whether it was here. */
  remove(id: string): boolean {
    this.hidden.delete(id);
    const known = this.byId.get(id);
    const pending = this.pending.findIndex((s) => s.id === id);
    if (pending >= 0) this.pending.splice(pending, 1);
    if (!known) return pending >= 0;
    this.byId.delete(id);
    this.confirmed.splice(this.confirmed.indexOf(known), 1);
    return true;
  }

  /** Our own stroke, applied here at once, before the cell stores it. */
  addPending(stroke: ForestStroke): void {
    if (!this.byId.has(stroke.id) && !this.pending.some((s) => s.id === stroke.id)) this.pending.push(stroke);
  }

  /** Hides a stroke until the cell confirms its undo (or shows it again with {@link unhide}). */
  hide(id: string): void {
    if (this.byId.has(id) || this.pending.some((s) => s.id === id)) this.hidden.add(id);
  }

  /** Shows a hidden stroke again (its undo was refused). */
  unhide(id: string): void {
    this.hidden.delete(id);
  }

  /** Whether a stroke with this id is here, stored or pending. */
  has(id: string): boolean {
    return this.byId.has(id) || this.pending.some((s) => s.id === id);
  }

  /** The stored stroke with this id, if the cell has confirmed it. */
  stored(id: string): SharedStroke | undefined {
    return this.byId.get(id);
  }

  /** Stored strokes, in the cell's order. */
  get storedStrokes(): readonly SharedStroke[] {
    return this.confirmed;
  }

  /** The order the cell's forest is computed in. */
  list(): ForestStroke[] {
    const out: ForestStroke[] = [];
    for (const stroke of this.confirmed) if (!this.hidden.has(stroke.id)) out.push(stroke);
    for (const stroke of this.pending) if (!this.hidden.has(stroke.id)) out.push(stroke);
    return out;
  }

  private dropStoredPending(): void {
    for (let i = this.pending.length - 1; i >= 0; i--) if (this.byId.has(this.pending[i]!.id)) this.pending.splice(i, 1);
  }
}

import { CELL_SIZE, cellAt, type Cell } from '../protocol/world.ts';

/**
 * Which cell a player publishes in, with hysteresis: the current cell until the player is
 * `margin` metres inside another one, so walking along a border does not hop back and forth.
 * Subscriptions (the 3×3 around this cell) follow it, so they inherit the hysteresis. Pure.
 */
export class CellTracker {
  /** The publication cell (null before the first position). */
  cell: Cell | null = null;
  /** Cell changes so far. */
  changes = 0;

  /** Cell edge (m). */
  readonly size: number;
  /** Metres past a border before the publication moves. */
  readonly margin: number;

  constructor(
    size = CELL_SIZE,
    /** Metres past a border before the publication moves. Default 4. */
    margin = 4,
  ) {
    this.size = size;
    this.margin = margin;
    if (!(margin >= 0 && margin < size / 2)) throw new RangeError(`CellTracker: margin ${margin} must be in [0, ${size / 2})`);
  }

  /** Updates with a position and returns the publication cell. */
  update(x: number, z: number): Cell {
    const here = cellAt(x, z, this.size);
    const current = this.cell;
    if (!current) {
      this.cell = here;
      return here;
    }
    if (here.x === current.x && here.z === current.z) return current;
    // How far outside the current cell's square the point lies (m).
    const x0 = current.x * this.size;
    const z0 = current.z * this.size;
    const outside = Math.max(x0 - x, x - (x0 + this.size), z0 - z, z - (z0 + this.size));
    if (outside <= this.margin) return current;
    this.cell = here;
    this.changes++;
    return here;
  }

  /** Forgets the cell (after a teleport or re-entry). */
  reset(cell: Cell | null = null): void {
    this.cell = cell;
  }
}

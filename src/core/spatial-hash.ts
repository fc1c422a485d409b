import type { XZ } from './math.ts';

/**
 * A uniform grid over the XZ plane for radius queries on points (spacing checks, neighbour lookups,
 * interest management). Items are numeric ids; insert, move and remove are O(1) amortised, and a
 * radius query only visits the cells the circle overlaps.
 */
export class SpatialHash2D {
  /** Side of a grid cell (m). A cell near the typical query radius keeps queries to a few cells. */
  readonly cellSize: number;
  private readonly cells = new Map<number, number[]>();
  private readonly items = new Map<number, { x: number; z: number; key: number }>();

  constructor(cellSize: number) {
    if (!(cellSize > 0)) throw new RangeError(`SpatialHash2D: cellSize must be > 0 (got ${cellSize})`);
    this.cellSize = cellSize;
  }

  /** Number of items held. */
  get size(): number {
    return this.items.size;
  }

  /** Whether an item with this id is held. */
  has(id: number): boolean {
    return this.items.has(id);
  }

  /** Position of an item, or undefined. */
  get(id: number): XZ | undefined {
    const item = this.items.get(id);
    return item && { x: item.x, z: item.z };
  }

  /** Adds an item at (x, z); an id already held is moved there instead. */
  insert(id: number, x: number, z: number): void {
    if (this.items.has(id)) {
      this.move(id, x, z);
      return;
    }
    const key = this.keyOf(x, z);
    this.items.set(id, { x, z, key });
    this.cellAt(key).push(id);
  }

  /** Moves an item to (x, z), changing its cell only when it crosses into another; an id not held is inserted. */
  move(id: number, x: number, z: number): void {
    const item = this.items.get(id);
    if (!item) return this.insert(id, x, z);
    const key = this.keyOf(x, z);
    if (key !== item.key) {
      this.removeFromCell(item.key, id);
      this.cellAt(key).push(id);
      item.key = key;
    }
    item.x = x;
    item.z = z;
  }

  /** Removes an item; returns whether it was held. */
  remove(id: number): boolean {
    const item = this.items.get(id);
    if (!item) return false;
    this.removeFromCell(item.key, id);
    this.items.delete(id);
    return true;
  }

  /** Removes every item. */
  clear(): void {
    this.cells.clear();
    this.items.clear();
  }

  /** Calls `visit(id, distanceSquared)` for every item within `radius` of (x, z). */
  forEachWithin(x: number, z: number, radius: number, visit: (id: number, distanceSquared: number) => void): void {
    const r2 = radius * radius;
    const min = this.cellCoord(x - radius);
    const maxX = this.cellCoord(x + radius);
    const minZ = this.cellCoord(z - radius);
    const maxZ = this.cellCoord(z + radius);
    for (let cx = min; cx <= maxX; cx++) {
      for (let cz = minZ; cz <= maxZ; cz++) {
        const cell = this.cells.get(packKey(cx, cz));
        if (!cell) continue;
        for (let i = 0; i < cell.length; i++) {
          const id = cell[i]!;
          const item = this.items.get(id)!;
          const dx = item.x - x;
          const dz = item.z - z;
          const d2 = dx * dx + dz * dz;
          if (d2 <= r2) visit(id, d2);
        }
      }
    }
  }

  /** Ids within `radius` of (x, z), written into `out` (cleared first) to avoid allocation. */
  queryRadius(x: number, z: number, radius: number, out: number[] = []): number[] {
    out.length = 0;
    this.forEachWithin(x, z, radius, (id) => out.push(id));
    return out;
  }

  /** True when some item within `radius` satisfies `predicate` (stops at the first). */
  anyWithin(x: number, z: number, radius: number, predicate: (id: number) => boolean = () => true): boolean {
    const r2 = radius * radius;
    const minX = this.cellCoord(x - radius);
    const maxX = this.cellCoord(x + radius);
    const minZ = this.cellCoord(z - radius);
    const maxZ = this.cellCoord(z + radius);
    for (let cx = minX; cx <= maxX; cx++) {
      for (let cz = minZ; cz <= maxZ; cz++) {
        const cell = this.cells.get(packKey(cx, cz));
        if (!cell) continue;
        for (const id of cell) {
          const item = this.items.get(id)!;
          const dx = item.x - x;
          const dz = item.z - z;
          if (dx * dx + dz * dz <= r2 && predicate(id)) return true;
        }
      }
    }
    return false;
  }

  private cellCoord(v: number): number {
    return Math.floor(v / this.cellSize);
  }

  private keyOf(x: number, z: number): number {
    return packKey(this.cellCoord(x), this.cellCoord(z));
  }

  private cellAt(key: number): number[] {
    let cell = this.cells.get(key);
    if (!cell) this.cells.set(key, (cell = []));
    return cell;
  }

  private removeFromCell(key: number, id: number): void {
    const cell = this.cells.get(key);
    if (!cell) return;
    const index = cell.indexOf(id);
    if (index < 0) return;
    // swap-remove: order within a cell does not matter
    cell[index] = cell[cell.length - 1]!;
    cell.pop();
    if (cell.length === 0) this.cells.delete(key);
  }
}

/** Packs two cell coordinates (each within ±2^25) into one exact double key. */
function packKey(cx: number, cz: number): number {
  return (cx + 33554432) * 67108864 + (cz + 33554432);
}

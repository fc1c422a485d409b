/**
 * Dense slot storage for per-avatar data that the GPU reads as one contiguous range.
 *
 * Every member owns a {@link SlotRef}; its data lives at `ref.slot × stride` in each channel.
 * Adding appends at `count` (O(1)); removing moves the last member into the freed slot
 * (swap-remove, O(1)) and updates that member's ref, so a handle keeps pointing at its own data
 * while the occupied range stays `[0, count)` — the only range that ever needs uploading.
 * When full, capacity grows by reallocation (doubling, rounded to `capacityStep`) and every
 * member's data is copied across. Pure logic: no three.js, no DOM.
 */
import { Emitter } from '../core/emitter.ts';
import { withDefaults } from '../core/options.ts';

/** A member's place in the table. `slot` changes when another member is removed; the ref does not. */
export interface SlotRef<T> {
  /** Current slot index, or -1 once removed. */
  slot: number;
  /** Whatever the caller attached (the avatar this slot belongs to). */
  readonly owner: T;
}

export interface SlotTableOptions {
  /** Floats per slot for each named channel, e.g. `{ bones: 64 * 12 }`. */
  channels: Record<string, number>;
  /** Initial capacity in slots. Default 16. */
  capacity?: number;
  /** Capacities are rounded up to a multiple of this (texture layers hold several slots). Default 1. */
  capacityStep?: number;
  /** Hard upper bound on capacity; adding past it throws a RangeError. Default Infinity. */
  maxCapacity?: number;
}

/** Defaults of {@link SlotTableOptions}: 16 slots, no rounding, no ceiling. */
export const SLOT_TABLE_DEFAULTS: Required<Omit<SlotTableOptions, 'channels'>> = {
  capacity: 16,
  capacityStep: 1,
  maxCapacity: Number.POSITIVE_INFINITY,
};

/** What a {@link SlotTable} emits. */
export interface SlotTableEvents extends Record<string, unknown> {
  /** After a reallocation: the new capacity. The channel arrays have been replaced. */
  grow: { capacity: number };
}

export class SlotTable<T> extends Emitter<SlotTableEvents> {
  /** Channel arrays, `capacity × stride` floats each. Replaced (not resized) when the table grows. */
  readonly channels: Record<string, Float32Array> = {};
  readonly strides: Readonly<Record<string, number>>;
  private refs: Array<SlotRef<T>> = [];
  private _capacity: number;
  private readonly step: number;
  private readonly maxCapacity: number;
  /** Reallocations so far (for stats and tests). */
  grows = 0;

  constructor(options: SlotTableOptions) {
    super();
    const resolved = withDefaults(SLOT_TABLE_DEFAULTS, options);
    this.strides = { ...options.channels };
    for (const [name, stride] of Object.entries(this.strides)) {
      if (!Number.isInteger(stride) || stride <= 0)
        throw new RangeError(`SlotTable: channel "${name}" needs a positive integer stride, got ${stride}`);
    }
    this.step = Math.max(1, Math.floor(resolved.capacityStep));
    this.maxCapacity = resolved.maxCapacity;
    this._capacity = this.round(Math.max(1, resolved.capacity));
    if (this._capacity > this.maxCapacity)
      throw new RangeError(`SlotTable: initial capacity ${this._capacity} exceeds maxCapacity ${this.maxCapacity}`);
    for (const [name, stride] of Object.entries(this.strides)) this.channels[name] = new Float32Array(this._capacity * stride);
  }

  /** Occupied slots: always exactly `[0, count)`. */
  get count(): number {
    return this.refs.length;
  }

  get capacity(): number {
    return this._capacity;
  }

  /** The ref living in `slot` (the back-reference used by swap-remove). */
  refAt(slot: number): SlotRef<T> {
    const ref = this.refs[slot];
    if (!ref) throw new RangeError(`SlotTable: slot ${slot} is not occupied (count ${this.count})`);
    return ref;
  }

  /** Appends a member; grows the table first when it is full. O(1) amortised. */
  add(owner: T): SlotRef<T> {
    if (this.refs.length === this._capacity) this.reserve(this._capacity * 2);
    const ref: SlotRef<T> = { slot: this.refs.length, owner };
    this.refs.push(ref);
    return ref;
  }

  /**
   * Frees a member's slot by moving the last member into it (its data and its ref). Returns the
   * ref that moved, or null when the removed member was last. Removing twice is a no-op.
   */
  remove(ref: SlotRef<T>): SlotRef<T> | null {
    const slot = ref.slot;
    if (slot < 0) return null;
    if (this.refs[slot] !== ref) throw new Error('SlotTable: this ref belongs to another table');
    const lastSlot = this.refs.length - 1;
    const last = this.refs.pop()!;
    ref.slot = -1;
    if (slot === lastSlot) return null;
    for (const [name, stride] of Object.entries(this.strides)) {
      const array = this.channels[name]!;
      array.copyWithin(slot * stride, lastSlot * stride, lastSlot * stride + stride);
    }
    this.refs[slot] = last;
    last.slot = slot;
    return last;
  }

  /** Float offset of a slot in a channel. */
  offset(channel: string, slot: number): number {
    const stride = this.strides[channel];
    if (stride === undefined) throw new Error(`SlotTable: no channel "${channel}"`);
    return slot * stride;
  }

  /** Makes room for at least `capacity` slots (reallocating and copying the occupied range). */
  reserve(capacity: number): void {
    const wanted = this.round(capacity);
    if (wanted <= this._capacity) return;
    const ceiling = Math.floor(this.maxCapacity / this.step) * this.step;
    const next = Math.min(wanted, ceiling);
    if (next <= this._capacity) throw new RangeError(`SlotTable: full at its maximum capacity of ${this._capacity} slots`);
    for (const [name, stride] of Object.entries(this.strides)) {
      const grown = new Float32Array(next * stride);
      grown.set(this.channels[name]!.subarray(0, this.refs.length * stride));
      this.channels[name] = grown;
    }
    this._capacity = next;
    this.grows++;
    this.emit('grow', { capacity: next });
  }

  /** Every occupied ref, slot order. The array is live; do not modify it. */
  members(): ReadonlyArray<SlotRef<T>> {
    return this.refs;
  }

  private round(capacity: number): number {
    return Math.ceil(capacity / this.step) * this.step;
  }
}

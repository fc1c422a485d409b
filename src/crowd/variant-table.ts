/**
 * Per-avatar variants of one template: each variant recolours the template's regions (its own
 * colours, matched per vertex: a humanoid's skin, hair, shirt, trousers and shoes) and scales its
 * build (height along Y, width along X and Z). Every avatar's animation record carries a variant
 * index and the shader looks it up in one uniform table, so any mix of variants is drawn with
 * the template's draw calls — no template, material or draw call per look. Entry 0 is the
 * template as authored. Variants are shared by key and counted, so a table of `capacity` entries
 * serves any number of avatars wearing up to `capacity − 1` distinct looks at once. Pure: plain
 * arrays, no three.js.
 */
import { withDefaults } from '../core/options.ts';

type Rgb = readonly [number, number, number];

/** One variant: a colour per region (in the order of {@link CrowdVariantsOptions.regions}) and a build. */
export interface CrowdVariant {
  /** A colour per region (linear RGB), in the regions' order. */
  colors: readonly Rgb[];
  /** Scale along Y. */
  height: number;
  /** Scale along X and Z. */
  width: number;
}

/** Which colours of a template its variants recolour. */
export interface CrowdVariantsOptions {
  /**
   * The template's own colours, one per region (linear RGB). A vertex whose colour is within
   * {@link REGION_TOLERANCE} of one of them takes the variant's colour for that region; others
   * keep theirs (the humanoid's eyes).
   */
  regions: readonly Rgb[];
  /** Most variants in use at once, entry 0 (the template as authored) included. Default 64. */
  capacity?: number;
}

/** Defaults of {@link CrowdVariantsOptions} (the regions have none): 64 variants. */
export const CROWD_VARIANTS_DEFAULTS: Required<Omit<CrowdVariantsOptions, 'regions'>> = { capacity: 64 };

/** How close (per channel, linear) a vertex colour must be to a region's colour to be recoloured. */
export const REGION_TOLERANCE = 0.005;

/**
 * The variant table: `data` holds `capacity × stride` vec4s, entry `i × stride + r` the colour of
 * region r in variant i (rgb) — with the height scale in entry 0's w and the width in entry 1's.
 */
export class VariantTable {
  /** The template's colours the variants recolour, one per region. */
  readonly regions: readonly Rgb[];
  /** Most variants in use at once, entry 0 included. */
  readonly capacity: number;
  /** vec4s per variant: one per region, at least two (they carry the build). */
  readonly stride: number;
  /** x, y, z, w per vec4, `capacity × stride` of them: the shader's uniform table. */
  readonly data: Float32Array;
  /** Variants asked for while every entry was in use (those avatars wear entry 0). */
  full = 0;
  /** Bumped whenever `data` changes, so the renderer knows to upload it. */
  version = 0;
  private readonly keys: Array<string | null>;
  private readonly users: Int32Array;
  private readonly lastUse: Float64Array;
  private readonly byKey = new Map<string, number>();
  private clock = 0;

  constructor(options: CrowdVariantsOptions) {
    if (options.regions.length === 0) throw new RangeError('VariantTable: at least one region');
    this.regions = options.regions;
    this.capacity = Math.max(2, Math.floor(withDefaults(CROWD_VARIANTS_DEFAULTS, options).capacity));
    this.stride = Math.max(2, options.regions.length);
    this.data = new Float32Array(this.capacity * this.stride * 4);
    this.keys = Array.from({ length: this.capacity }, () => null);
    this.users = new Int32Array(this.capacity);
    this.lastUse = new Float64Array(this.capacity);
    this.write(0, { colors: this.regions, height: 1, width: 1 });
    this.keys[0] = '';
  }

  /** Variants in use now (entry 0 not counted). */
  get inUse(): number {
    let n = 0;
    for (let i = 1; i < this.capacity; i++) if (this.users[i]! > 0) n++;
    return n;
  }

  /**
   * The entry for `key` (defining it as `variant` when new), counted as used once more; release it
   * with {@link release}. Returns 0 (the template as authored) when every entry is in use.
   */
  acquire(key: string, variant: CrowdVariant): number {
    let index = this.byKey.get(key);
    if (index === undefined) {
      index = this.freeEntry();
      if (index < 0) {
        this.full++;
        return 0;
      }
      const old = this.keys[index];
      if (old) this.byKey.delete(old);
      this.keys[index] = key;
      this.byKey.set(key, index);
      this.write(index, variant);
    }
    this.users[index]!++;
    this.lastUse[index] = ++this.clock;
    return index;
  }

  /** One user fewer of entry `index` (0 and unknown entries are ignored). */
  release(index: number): void {
    if (index <= 0 || index >= this.capacity || this.users[index]! <= 0) return;
    this.users[index]!--;
  }

  /** An entry nobody uses, the least recently used first (kept definitions are reused by key), or −1. */
  private freeEntry(): number {
    let best = -1;
    for (let i = 1; i < this.capacity; i++) {
      if (this.users[i]! > 0) continue;
      if (this.keys[i] === null) return i;
      if (best < 0 || this.lastUse[i]! < this.lastUse[best]!) best = i;
    }
    return best;
  }

  private write(index: number, variant: CrowdVariant): void {
    if (variant.colors.length !== this.regions.length)
      throw new RangeError(`a variant needs ${this.regions.length} colours (one per region), got ${variant.colors.length}`);
    for (let r = 0; r < this.stride; r++) {
      const o = (index * this.stride + r) * 4;
      const color = variant.colors[r] ?? [0, 0, 0];
      this.data[o] = color[0];
      this.data[o + 1] = color[1];
      this.data[o + 2] = color[2];
      this.data[o + 3] = r === 0 ? variant.height : r === 1 ? variant.width : 0;
    }
    this.version++;
  }
}

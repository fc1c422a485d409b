import { damp } from '../core/math.ts';
import { withDefaults } from '../core/options.ts';

/** Default blend rate of the rig offset: 5 per second (time constant 0.2 s, 95 % in 0.6 s). */
export const RIG_OFFSET_RATE = 5;

/** Options of a {@link RigOffsetBlend}. */
export interface RigOffsetBlendOptions {
  /** Exponential approach rate (1/s). Default {@link RIG_OFFSET_RATE}. */
  rate?: number;
  /** Starting offset (metres). Default 0. */
  initial?: number;
}

const RIG_OFFSET_BLEND_DEFAULTS: Required<RigOffsetBlendOptions> = { rate: RIG_OFFSET_RATE, initial: 0 };

/**
 * A per-clip vertical rig offset, blended smoothly: swim clips sit the body in the water (a crawl
 * near the surface, treading water deeper), and switching between them — or back to walking — must
 * not pop. The offset approaches the active clip's `userData.rigOffset` at 5 Hz, frame-rate
 * independently (a first-order filter, see `damp`).
 */
export class RigOffsetBlend {
  /** The blended offset now (metres; negative = lower). */
  value: number;
  /** The offset being approached. */
  target: number;
  /** Exponential approach rate (1/s). */
  readonly rate: number;

  constructor(options: RigOffsetBlendOptions = {}) {
    const { rate, initial } = withDefaults(RIG_OFFSET_BLEND_DEFAULTS, options);
    this.rate = rate;
    this.value = initial;
    this.target = this.value;
  }

  /** Sets the offset to approach (a clip's `userData.rigOffset`, 0 for clips without one). */
  setTarget(offset: number): void {
    this.target = Number.isFinite(offset) ? offset : 0;
  }

  /** Advances the blend by `dt` seconds and returns the offset. */
  update(dt: number): number {
    this.value = damp(this.value, this.target, this.rate, Math.max(0, dt));
    return this.value;
  }
}

/** A clip's rig offset from its userData (0 when it has none). */
export function clipRigOffset(userData: unknown): number {
  const offset = (userData as { rigOffset?: unknown } | undefined)?.rigOffset;
  return typeof offset === 'number' && Number.isFinite(offset) ? offset : 0;
}

import { SOFT_CLIP_CEILING, SOFT_CLIP_KNEE } from './clipper-curve.ts';

/**
 * The mix bus's numbers, as data:
 * effects / music / ambience → high-pass 35 Hz → compressor → low-pass (18 kHz open, swept down while
 * paused) → makeup ×2.25 → master (ui enters here) → limiter −3 dB → soft clipper → speakers.
 */
export interface CompressorSettings {
  /** dB. */
  threshold: number;
  /** Compression ratio (n : 1). */
  ratio: number;
  /** dB. */
  knee: number;
  /** Seconds. */
  attack: number;
  /** Seconds. */
  release: number;
}

/** The user's volume per bus (0…2; 1 is as designed). */
export interface BusVolumes {
  /** Everything. */
  master: number;
  /** Footsteps, impacts, pickups. */
  effects: number;
  /** The music. */
  music: number;
  /** Wind and fire. */
  ambience: number;
  /** Interface clicks and confirmations (they skip the compressor and the muffling). */
  ui: number;
}

/** The mix bus: its filters, dynamics, clipper, trims and volumes. */
export interface MixSettings {
  /** Rumble high-pass cutoff (Hz). */
  highpassHz: number;
  /** The glue compressor. */
  compressor: CompressorSettings;
  /** Low-pass cutoff in play. */
  lowpassOpenHz: number;
  /** Low-pass cutoff while the game is paused: the world heard through the menu. */
  lowpassMuffledHz: number;
  /** Time constant of the sweep between the two, seconds. */
  lowpassSweepSeconds: number;
  /** Linear gain after the compressor. */
  makeupGain: number;
  /** The limiter before the clipper. */
  limiter: CompressorSettings;
  /** The soft clipper at the end of the chain. */
  clipper: {
    /** |x| up to this passes unchanged. */
    knee: number;
    /** The asymptote the output bends towards. */
    ceiling: number;
    /** The WaveShaper's oversampling. */
    oversample: '2x';
  };
  /** Seconds the master takes to fade on mute and unmute. */
  muteRampSeconds: number;
  /**
   * Gain staging per bus input, before the user's volume. Recipes are designed at full scale dry;
   * the compressor and makeup add up to ≈ +14 dB to quiet material, so the world's buses enter low
   * and the UI (which skips both) enters higher. Tuned so the gameplay slice sits in band.
   */
  trims: Omit<BusVolumes, 'master'>;
  /** The user's volumes (0…2), multiplied with the trims. */
  volumes: BusVolumes;
}

/** Cairn's mix: 35 Hz high-pass, a 4:1 glue compressor, a −3 dB limiter, the soft clipper, trims that put the gameplay slice in band. */
export const DEFAULT_MIX: MixSettings = {
  highpassHz: 35,
  compressor: { threshold: -16, ratio: 4, knee: 10, attack: 0.004, release: 0.2 },
  lowpassOpenHz: 18000,
  lowpassMuffledHz: 650,
  lowpassSweepSeconds: 0.12,
  makeupGain: 2.25,
  limiter: { threshold: -3, ratio: 20, knee: 0, attack: 0.001, release: 0.1 },
  clipper: { knee: SOFT_CLIP_KNEE, ceiling: SOFT_CLIP_CEILING, oversample: '2x' },
  muteRampSeconds: 0.03,
  trims: { effects: 0.3, music: 0.65, ambience: 0.6, ui: 1.2 },
  volumes: { master: 1, effects: 1, music: 0.8, ambience: 0.8, ui: 0.8 },
};

/** DEFAULT_MIX with some values replaced (volumes merged key by key). */
export function mixSettings(overrides: Partial<MixSettings> = {}): MixSettings {
  return {
    ...DEFAULT_MIX,
    ...overrides,
    trims: { ...DEFAULT_MIX.trims, ...overrides.trims },
    volumes: { ...DEFAULT_MIX.volumes, ...overrides.volumes },
  };
}

/** Clamps a volume to 0…2 and rejects non-numbers with a clear message. */
export function checkVolume(bus: string, value: unknown): number {
  if (typeof value !== 'number' || !Number.isFinite(value))
    throw new RangeError(`volume for ${bus} must be a finite number (got ${JSON.stringify(value)})`);
  return Math.min(2, Math.max(0, value));
}

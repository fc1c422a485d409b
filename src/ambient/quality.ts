import type { AmbientScatterOptions } from './ambient-scatter.ts';
import { isSoftwareAdapter } from '../world/renderer.ts';

/**
 * The world's quality tiers and the rule that picks one for a machine. Pure: the page reads its
 * URL and the renderer's adapter and passes them in (library code never reads `location`).
 */

/** A tier's name: 'off' (bare terrain), 'low' (what a software rasteriser holds) or 'full'. */
export type WorldQuality = 'off' | 'low' | 'full';

/** Every tier, from the cheapest. */
export const WORLD_QUALITIES: readonly WorldQuality[] = ['off', 'low', 'full'];

/** What a tier puts in the world and how finely it is drawn. */
export interface QualityTier {
  /**
   * The drawing buffer's resolution against the window's (× devicePixelRatio, at most 2): a software
   * rasteriser's cost is mostly pixels, so its tier draws fewer and lets the browser scale them up.
   */
  renderScale: number;
  /** Whether the sun casts shadows (the shadow pass is the next largest cost on a CPU). */
  shadows: boolean;
  /** The ambient scatter's options at this tier, or null for no vegetation. */
  scatter: Pick<AmbientScatterOptions, 'loadRadius' | 'unloadRadius' | 'detailRadius' | 'plan' | 'shadows'> | null;
  /** People walking about near the spawn (`?people=N` overrides). */
  people: number;
  /** One line for a person: what the tier draws. */
  summary: string;
}

/** The tiers. Figures per tier on SwiftShader: bench/world/world-tiers.bench.ts. */
export const QUALITY_TIERS: Readonly<Record<WorldQuality, QualityTier>> = {
  off: { renderScale: 1, shadows: true, scatter: null, people: 0, summary: 'bare terrain: no trees, no people' },
  low: {
    renderScale: 0.7,
    shadows: false,
    scatter: { loadRadius: 110, unloadRadius: 140, detailRadius: 48, plan: { densityScale: 0.34 }, shadows: false },
    people: 8,
    summary: 'trees to 110 m, 8 people, no shadows, 70 % resolution',
  },
  full: { renderScale: 1, shadows: true, scatter: {}, people: 8, summary: 'trees to 200 m, 8 people, shadows' },
};

/** `cairn.stats.quality`: the tier in use and why it was chosen. */
export interface QualityChoice {
  tier: WorldQuality;
  /** Why this tier: asked for in the URL, or what suits the adapter. */
  reason: string;
  /** True when the URL asked for it (`?quality=`), false when chosen for the machine. */
  asked: boolean;
  /** True when the adapter is a software rasteriser (no GPU). */
  software: boolean;
  /** People walking about (the tier's, or `?people=N`). */
  people: number;
  /** The tier's drawing resolution against the window's, and whether the sun casts shadows. */
  renderScale: number;
  shadows: boolean;
}

/** Reads `?quality=`: a tier name, or null for anything else (chosen for the machine then). */
export function parseQuality(value: string | null): WorldQuality | null {
  return value !== null && (WORLD_QUALITIES as readonly string[]).includes(value) ? (value as WorldQuality) : null;
}

/**
 * The tier for this visit: the one asked for, else 'low' on a software rasteriser (a CPU drawing
 * the full forest takes seconds per frame; 'low' is what it holds, see the bench) and 'full' on a
 * GPU. `people` (from `?people=N`, clamped to 0–40) overrides the tier's count.
 */
export function chooseQuality(input: {
  adapter: string;
  asked: string | null;
  people?: string | null;
  /**
   * The browser presents a drawing buffer smaller than its canvas slowly, so the tier draws at full
   * resolution: Firefox's WebGPU canvas (on lavapipe, ten frames of the low tier took 111 s scaled
   * and 18.5 s unscaled; see docs/browsers.md). Default false.
   */
  scaledBufferIsSlow?: boolean;
}): QualityChoice {
  const asked = parseQuality(input.asked);
  const software = isSoftwareAdapter(input.adapter);
  const tier = asked ?? (software ? 'low' : 'full');
  const name = input.adapter.trim() || 'unknown adapter';
  const reason = asked ? `asked for (?quality=${asked})` : software ? `software rasteriser (${name}): no GPU` : `hardware GPU (${name})`;
  const requested = input.people === null || input.people === undefined ? Number.NaN : Number(input.people);
  const people = Number.isFinite(requested) ? Math.min(40, Math.max(0, Math.round(requested))) : QUALITY_TIERS[tier].people;
  const { shadows } = QUALITY_TIERS[tier];
  const renderScale = input.scaledBufferIsSlow ? 1 : QUALITY_TIERS[tier].renderScale;
  return { tier, reason, asked: asked !== null, software, people, renderScale, shadows };
}

declare module '../world/cairn-global.ts' {
  interface CairnStats {
    /** The world's quality tier and why it was chosen (the world page). */
    quality?: QualityChoice;
  }
}

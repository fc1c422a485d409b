import type { Chord } from '../music-theory.ts';
import type { Layer } from '../layers.ts';
import type { VoiceLimit } from '../voice-limiter.ts';

/** The mix bus inputs. `ui` enters after the pause low-pass, straight into master. */
export type BusName = 'effects' | 'music' | 'ambience' | 'ui';

/** Every bus. */
export const BUS_NAMES: readonly BusName[] = ['effects', 'music', 'ambience', 'ui'];

/** The families a mix is balanced by (loudness-targets.ts): each has a loudness band and a true-peak cap. */
export type SoundClass = 'ui' | 'footsteps' | 'impacts' | 'ambience' | 'music';

/** What a recipe may ask while planning: seeded variation and the music's current chord. */
export interface RecipeContext {
  /** `value` moved by up to ±`amount` (default ±8 %), from the seeded sequence. */
  vary(value: number, amount?: number): number;
  /** Uniform in [min, max), from the seeded sequence. */
  range(min: number, max: number): number;
  /** The chord the music is playing now (the tonic chord when music is off). */
  chord: Chord;
}

/**
 * A sound as data plus code: where it plays, how often it may fire, how many may overlap, and a
 * `plan` that turns parameters into layers. Plans are pure, so Node tests read them directly.
 */
export interface Recipe<P extends object = Record<string, never>> {
  /** The name it is played by. */
  name: string;
  /** One line for the sfx page and docs. */
  summary: string;
  /** The bus it plays on. */
  bus: BusName;
  /** The class whose loudness band and gain budget it shares. */
  soundClass: SoundClass;
  /** A trigger within this many ms of the last accepted one is skipped. */
  cooldownMs: number;
  /** Per-sound voice limit and stealing policy. */
  limit: VoiceLimit;
  /** Parameters used when the caller passes none; also what the golden renders use. */
  defaults: P;
  /** Throws RangeError on invalid parameters. */
  plan(params: P, ctx: RecipeContext): Layer[];
}

/** Helper that keeps each recipe's parameter type while storing them in one registry. */
export function defineRecipe<P extends object>(recipe: Recipe<P>): Recipe<P> {
  return recipe;
}

/** `value` when it is a finite number in [min, max]; otherwise throws a RangeError naming the recipe and parameter. */
export function requireNumber(recipe: string, name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw new RangeError(`${recipe}: ${name} must be a number in [${min}, ${max}] (got ${JSON.stringify(value)})`);
  }
  return value;
}

import type { RecipeName } from './recipes/index.ts';
import type { Surface } from './surfaces.ts';

/** One scripted trigger: `at` seconds into the slice. */
export interface SliceEvent {
  /** Seconds into the slice. */
  at: number;
  /** The recipe played. */
  recipe: RecipeName;
  /** Its parameters. Default none. */
  params?: Record<string, unknown>;
}

function steps(from: number, to: number, every: number, surface: Surface, intensity: number): SliceEvent[] {
  const out: SliceEvent[] = [];
  for (let t = from; t < to - 1e-9; t += every)
    out.push({ at: Math.round(t * 1000) / 1000, recipe: 'footstep', params: { surface, intensity } });
  return out;
}

const SLICE_EVENTS: SliceEvent[] = [
  ...steps(0.2, 2.4, 0.47, 'grass', 1),
  ...steps(2.4, 4.45, 0.27, 'dirt', 1.3),
  { at: 4.5, recipe: 'jump', params: { surface: 'dirt' } },
  { at: 5.05, recipe: 'land', params: { surface: 'stone', impact: 6.5 } },
  ...steps(5.4, 6.4, 0.47, 'stone', 1),
  { at: 5.6, recipe: 'strike', params: { intensity: 1 } },
  { at: 5.9, recipe: 'strike', params: { intensity: 0.8 } },
  { at: 6.2, recipe: 'strike', params: { intensity: 1.2 } },
  { at: 6.6, recipe: 'crack-line', params: { count: 8 } },
  { at: 6.65, recipe: 'groan', params: { intensity: 1 } },
  { at: 7.2, recipe: 'chime' },
  { at: 7.45, recipe: 'chime' },
  { at: 7.7, recipe: 'chime' },
  { at: 7.95, recipe: 'chime' },
  { at: 8.3, recipe: 'ui-click' },
  { at: 8.5, recipe: 'ui-confirm' },
  ...steps(8.6, 9.8, 0.47, 'snow', 1),
];

/**
 * Ten seconds of play, as the level tests hear it (music and wind running underneath): a walk on
 * grass, a run on dirt, a jump and a landing on stone, three strikes, a crack running along eight
 * slabs with a groan, a streak of four crystal pickups, two menu clicks, a walk through snow.
 */
export const GAMEPLAY_SLICE: {
  /** Seconds. */
  duration: number;
  /** The triggers, in time order. */
  events: SliceEvent[];
} = {
  duration: 10,
  events: SLICE_EVENTS.sort((a, b) => a.at - b.at),
};

/** Anything that plays recipes at an audio time (the AudioEngine, an AudioGraph). */
export interface SlicePlayer {
  /** Plays recipe `name` with `params`, at audio time `options.at` (default now). */
  play(name: string, params?: object, options?: { at?: number }): unknown;
}

/** Schedules every event of `slice` from audio time `startAt`; returns the time it ends. */
export function playSlice(player: SlicePlayer, startAt: number, slice = GAMEPLAY_SLICE): number {
  for (const event of slice.events) player.play(event.recipe, event.params ?? {}, { at: startAt + event.at });
  return startAt + slice.duration;
}

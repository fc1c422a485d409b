import * as v from 'valibot';
import type { BusVolumes } from './mix-settings.ts';

/** What the engine remembers across sessions: the user's mute and volumes. */
export interface StoredAudioSettings {
  /** Muted when the page was left. */
  muted: boolean;
  /** Volume per bus the user set (0…1). */
  volumes: Partial<BusVolumes>;
}

const volume = v.optional(
  v.pipe(
    v.number(),
    v.finite(),
    v.transform((x) => Math.min(2, Math.max(0, x))),
  ),
);

/** The stored JSON, validated: unknown keys are ignored, bad values drop out rather than break the mix. */
const StoredSchema = v.object({
  muted: v.optional(v.boolean(), false),
  volumes: v.optional(
    v.object({
      master: v.fallback(volume, undefined),
      effects: v.fallback(volume, undefined),
      music: v.fallback(volume, undefined),
      ambience: v.fallback(volume, undefined),
      ui: v.fallback(volume, undefined),
    }),
    {},
  ),
});

/**
 * Mute and volumes in `localStorage[key]` (key `null`: nothing is kept). Private mode, a full
 * storage or a corrupt value never throw: settings then last for the session only.
 */
export class AudioSettingsStore {
  /** The localStorage key, or null to keep nothing. */
  readonly key: string | null;

  constructor(key: string | null) {
    this.key = key;
  }

  /** The stored settings; unmuted with no volumes when none are stored or storage fails. */
  load(): StoredAudioSettings {
    if (!this.key) return { muted: false, volumes: {} };
    try {
      const raw = globalThis.localStorage?.getItem(this.key);
      const parsed = v.safeParse(StoredSchema, raw ? JSON.parse(raw) : {});
      if (!parsed.success) return { muted: false, volumes: {} };
      const volumes: Partial<BusVolumes> = {};
      for (const [bus, value] of Object.entries(parsed.output.volumes)) if (value !== undefined) volumes[bus as keyof BusVolumes] = value;
      return { muted: parsed.output.muted, volumes };
    } catch {
      return { muted: false, volumes: {} };
    }
  }

  /** Stores the settings; a failing storage keeps nothing (no throw). */
  save(settings: StoredAudioSettings): void {
    if (!this.key) return;
    try {
      globalThis.localStorage?.setItem(this.key, JSON.stringify(settings));
    } catch {
      // Private mode or storage full: settings last until the page closes.
    }
  }
}

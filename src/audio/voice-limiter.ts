/**
 * Voice limits with stealing, as game audio middleware does: each sound and each bus may hold at
 * most `max` voices; a new voice past a limit either steals one (the oldest, or the quietest right
 * now) or is refused. Pure bookkeeping on the audio clock; the engine fades stolen voices out over
 * a few milliseconds and stops them.
 */

/** Which voice gives way when a limit is reached. */
export type StealPolicy = 'oldest' | 'quietest' | 'none';

export interface VoiceLimit {
  /** Most voices at once. */
  max: number;
  /**
   * `oldest`: the earliest-started voice gives way. `quietest`: the voice quietest right now gives
   * way, unless the new voice would be quieter still (then the new one is refused). `none`: the new
   * voice is refused.
   */
  steal: StealPolicy;
}

/** What the limiter knows about a playing voice: its timing and loudness envelope. */
export interface VoiceInfo {
  id: number;
  sound: string;
  bus: string;
  /** Audio time the voice starts. */
  start: number;
  /** Audio time its attack peaks (the loudest moment). */
  peakTime: number;
  /** Audio time it has decayed to silence. */
  end: number;
  /** Its peak linear amplitude. */
  peak: number;
}

export interface VoiceLimiterOptions {
  /** Limits per sound name. Sounds not listed use `defaultSound`. */
  perSound?: Record<string, VoiceLimit>;
  /** Limits per bus. Buses not listed are unlimited. */
  perBus?: Record<string, VoiceLimit>;
  /** Default per-sound limit. Default { max: 8, steal: 'oldest' }. */
  defaultSound?: VoiceLimit;
}

export interface AdmitResult {
  admitted: boolean;
  /** Voices to fade out and stop to make room (already removed from the limiter). */
  victims: VoiceInfo[];
  /** Why a voice was refused. */
  reason?: string;
}

/** The estimated amplitude of a voice at `time`: rising to its peak, then an exponential decay to 1e-4. */
export function voiceLevelAt(voice: VoiceInfo, time: number): number {
  if (time < voice.start || time >= voice.end) return 0;
  if (time <= voice.peakTime) {
    const span = voice.peakTime - voice.start;
    return span > 0 ? voice.peak * ((time - voice.start) / span) : voice.peak;
  }
  const span = voice.end - voice.peakTime;
  const floor = Math.min(1e-4, voice.peak);
  return voice.peak * Math.pow(floor / voice.peak, (time - voice.peakTime) / span);
}

export class VoiceLimiter {
  private readonly voices = new Map<number, VoiceInfo>();
  private readonly perSound: Record<string, VoiceLimit>;
  private readonly perBus: Record<string, VoiceLimit>;
  private readonly defaultSound: VoiceLimit;
  /** When false every voice is admitted (stress tests, benchmarks). */
  enabled = true;
  private stolenCount = 0;
  private refusedCount = 0;

  constructor(options: VoiceLimiterOptions = {}) {
    this.perSound = { ...options.perSound };
    this.perBus = { ...options.perBus };
    this.defaultSound = options.defaultSound ?? { max: 8, steal: 'oldest' };
  }

  /** Limit that applies to `sound`. */
  limitFor(sound: string): VoiceLimit {
    return this.perSound[sound] ?? this.defaultSound;
  }

  /**
   * Decides whether `candidate` may play. Voices compete when they sound at the moment the candidate
   * starts (sounds can be scheduled ahead: a footstep due in two seconds does not compete with one
   * now). Admitted voices are NOT added: call {@link add} once its nodes exist. Victims are removed
   * here and must be faded out by the caller.
   */
  admit(candidate: Omit<VoiceInfo, 'id'>, now: number): AdmitResult {
    this.reap(now);
    if (!this.enabled) return { admitted: true, victims: [] };
    const at = candidate.start;
    const victims: VoiceInfo[] = [];
    const sounding = (v: VoiceInfo): boolean => v.start <= at + 1e-6 && v.end > at;

    const soundLimit = this.limitFor(candidate.sound);
    const sameSound = this.list((v) => v.sound === candidate.sound && sounding(v));
    if (sameSound.length >= soundLimit.max) {
      const pick = this.chooseVictim(sameSound, soundLimit, candidate, at);
      if (!pick) return this.refuse(`${candidate.sound}: ${soundLimit.max} voices playing (steal: ${soundLimit.steal})`);
      victims.push(pick);
    }

    const busLimit = this.perBus[candidate.bus];
    if (busLimit) {
      const sameBus = this.list((v) => v.bus === candidate.bus && sounding(v) && !victims.includes(v));
      if (sameBus.length >= busLimit.max) {
        const pick = this.chooseVictim(sameBus, busLimit, candidate, at);
        if (!pick) return this.refuse(`bus ${candidate.bus}: ${busLimit.max} voices playing (steal: ${busLimit.steal})`);
        victims.push(pick);
      }
    }
    for (const victim of victims) this.voices.delete(victim.id);
    this.stolenCount += victims.length;
    return { admitted: true, victims };
  }

  add(voice: VoiceInfo): void {
    this.voices.set(voice.id, voice);
  }

  remove(id: number): void {
    this.voices.delete(id);
  }

  /** Drops voices that have finished by `now`; returns how many. */
  reap(now: number): number {
    let removed = 0;
    for (const [id, voice] of this.voices) {
      if (voice.end <= now) {
        this.voices.delete(id);
        removed++;
      }
    }
    return removed;
  }

  /** Voices currently held. */
  get size(): number {
    return this.voices.size;
  }

  count(filter: { sound?: string; bus?: string } = {}): number {
    return this.list((v) => (filter.sound === undefined || v.sound === filter.sound) && (filter.bus === undefined || v.bus === filter.bus)).length;
  }

  /** Voices sounding at audio time `time` (started, not yet ended), optionally of one sound or bus. */
  soundingAt(time: number, filter: { sound?: string; bus?: string } = {}): number {
    return this.list((v) => v.start <= time && v.end > time && (filter.sound === undefined || v.sound === filter.sound) && (filter.bus === undefined || v.bus === filter.bus)).length;
  }

  /** Voices stolen since construction. */
  get stolen(): number {
    return this.stolenCount;
  }

  /** New voices refused since construction. */
  get refused(): number {
    return this.refusedCount;
  }

  clear(): void {
    this.voices.clear();
  }

  private list(filter: (voice: VoiceInfo) => boolean): VoiceInfo[] {
    const out: VoiceInfo[] = [];
    for (const voice of this.voices.values()) if (filter(voice)) out.push(voice);
    return out;
  }

  private refuse(reason: string): AdmitResult {
    this.refusedCount++;
    return { admitted: false, victims: [], reason };
  }

  private chooseVictim(pool: VoiceInfo[], limit: VoiceLimit, candidate: Omit<VoiceInfo, 'id'>, at: number): VoiceInfo | null {
    if (limit.steal === 'none' || pool.length === 0) return null;
    if (limit.steal === 'oldest') {
      // Ties (voices started together) go to the lower id: the one created first.
      return pool.reduce((a, b) => (b.start < a.start || (b.start === a.start && b.id < a.id) ? b : a));
    }
    // Loudness when the candidate starts; a voice starting at that very moment counts at its peak.
    const levelOf = (voice: VoiceInfo): number => voiceLevelAt(voice, voice.start >= at - 1e-6 ? voice.peakTime : at);
    let quietest = pool[0]!;
    let quietestLevel = levelOf(quietest);
    for (const voice of pool) {
      const level = levelOf(voice);
      if (level < quietestLevel) {
        quietest = voice;
        quietestLevel = level;
      }
    }
    return candidate.peak >= quietestLevel ? quietest : null;
  }
}

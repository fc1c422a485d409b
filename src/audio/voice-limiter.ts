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

/** The voices of `pool` sounding together at the moment of the candidate's life when most of them do. */
function busiestMoment(pool: readonly VoiceInfo[], candidate: Omit<VoiceInfo, 'id'>): VoiceInfo[] {
  let busiest: VoiceInfo[] = [];
  // The count only rises where a voice starts, so the candidate's start and the starts inside its life are enough.
  const moments = [candidate.start, ...pool.map((v) => v.start).filter((t) => t > candidate.start && t < candidate.end)];
  for (const t of moments) {
    const sounding = pool.filter((v) => v.start <= t + 1e-6 && v.end > t + 1e-6);
    if (sounding.length > busiest.length) busiest = sounding;
  }
  return busiest;
}

export class VoiceLimiter {
  private readonly voices = new Map<number, VoiceInfo>();
  private readonly perSound: Record<string, VoiceLimit>;
  private readonly perBus: Record<string, VoiceLimit>;
  private readonly defaultSound: VoiceLimit;
  /** When false the per-sound limits are off (stress tests, benchmarks); bus limits still hold. */
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
   * Decides whether `candidate` may play. Voices compete when they overlap it in time (sounds can be
   * scheduled ahead: a footstep due in two seconds does not compete with one now, but one due while
   * the candidate still rings does), so at no moment do more than `max` voices of a sound or a bus
   * sound together. Admitted voices are NOT added: call {@link add} once its nodes exist. Victims are
   * removed here (a stolen voice counts as gone while it fades) and must be faded out by the caller.
   * `ignoreSoundLimit` (calls with guards off) skips the per-sound limit; bus limits always hold.
   */
  admit(candidate: Omit<VoiceInfo, 'id'>, now: number, options: { ignoreSoundLimit?: boolean } = {}): AdmitResult {
    this.reap(now);
    const victims: VoiceInfo[] = [];
    const overlaps = (v: VoiceInfo): boolean => v.start < candidate.end - 1e-6 && v.end > candidate.start + 1e-6;

    if (this.enabled && !options.ignoreSoundLimit) {
      const soundLimit = this.limitFor(candidate.sound);
      const refused = this.makeRoom(
        this.list((v) => v.sound === candidate.sound && overlaps(v)),
        soundLimit,
        candidate,
        victims,
      );
      if (refused) return this.refuse(`${candidate.sound}: ${soundLimit.max} voices playing (steal: ${soundLimit.steal})`);
    }

    const busLimit = this.perBus[candidate.bus];
    if (busLimit) {
      const refused = this.makeRoom(
        this.list((v) => v.bus === candidate.bus && overlaps(v) && !victims.includes(v)),
        busLimit,
        candidate,
        victims,
      );
      if (refused) return this.refuse(`bus ${candidate.bus}: ${busLimit.max} voices playing (steal: ${busLimit.steal})`);
    }
    for (const victim of victims) this.voices.delete(victim.id);
    this.stolenCount += victims.length;
    return { admitted: true, victims };
  }

  /**
   * Steals from `pool` (voices overlapping the candidate) until, at every moment of the candidate's
   * life, fewer than `limit.max` of them sound. Returns true when the candidate must be refused.
   */
  private makeRoom(pool: VoiceInfo[], limit: VoiceLimit, candidate: Omit<VoiceInfo, 'id'>, victims: VoiceInfo[]): boolean {
    const chosen: VoiceInfo[] = [];
    for (;;) {
      const crowd = busiestMoment(pool, candidate);
      if (crowd.length < limit.max) break;
      const pick = this.chooseVictim(
        crowd,
        limit,
        candidate,
        Math.max(
          candidate.start,
          crowd.reduce((t, v) => Math.max(t, v.start), candidate.start),
        ),
      );
      if (!pick) return true;
      chosen.push(pick);
      pool = pool.filter((v) => v !== pick);
    }
    victims.push(...chosen);
    return false;
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
    return this.list((v) => (filter.sound === undefined || v.sound === filter.sound) && (filter.bus === undefined || v.bus === filter.bus))
      .length;
  }

  /** Voices sounding at audio time `time` (started, not yet ended), optionally of one sound or bus. */
  soundingAt(time: number, filter: { sound?: string; bus?: string } = {}): number {
    return this.list(
      (v) =>
        v.start <= time &&
        v.end > time &&
        (filter.sound === undefined || v.sound === filter.sound) &&
        (filter.bus === undefined || v.bus === filter.bus),
    ).length;
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

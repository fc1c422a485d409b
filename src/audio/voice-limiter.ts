import { withDefaults } from '../core/options.ts';
import { BudgetTimeline, budgetGainOn, LOUDNESS_WINDOW, type ClassBudget, type VoiceEnvelope } from './class-budget.ts';

/** Which voice gives way when a limit is reached. */
export type StealPolicy = 'oldest' | 'quietest' | 'none';

/** A limit on voices at once, and who gives way. */
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

/** What the limiter knows about a voice: its timing and loudness envelope. */
export interface VoiceInfo {
  /** Unique, and rising in call order: ties in start time go to the lower id (the call made first). */
  id: number;
  /** The recipe (or ambience) name. */
  sound: string;
  /** The bus it plays on. */
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

/** A voice asked for: its envelope, and whether it skips the per-sound limit (guards off). */
export interface VoiceRequest extends VoiceInfo {
  /** Skip the per-sound limit (stress tests; bus limits always hold). Default false. */
  ignoreSoundLimit?: boolean;
  /** The sound class whose gain budget it shares, with its sampled envelope (none: it plays at gain 1). */
  budget?: {
    /** The class. */
    soundClass: string;
    /** The voice's sampled envelope, what it adds to the class's timeline. */
    envelope: VoiceEnvelope;
  };
}

/** Options of a {@link VoiceLimiter}. */
export interface VoiceLimiterOptions {
  /** Limits per sound name. Sounds not listed use `defaultSound`. */
  perSound?: Record<string, VoiceLimit>;
  /** Limits per bus. Buses not listed are unlimited. */
  perBus?: Record<string, VoiceLimit>;
  /** Default per-sound limit. Default { max: 8, steal: 'oldest' }. */
  defaultSound?: VoiceLimit;
  /** Gain budgets per sound class (class-budget.ts). Classes not listed are not budgeted. */
  budgets?: Record<string, ClassBudget>;
}

/** Defaults of a {@link VoiceLimiter}: no per-sound, per-bus or class limits; 8 voices a sound, the oldest stolen. */
const VOICE_LIMITER_DEFAULTS: Required<VoiceLimiterOptions> = {
  perSound: {},
  perBus: {},
  defaultSound: { max: 8, steal: 'oldest' },
  budgets: {},
};

/** What one change to the timeline did: the caller makes, cancels and fades nodes accordingly. */
export interface LimiterChanges {
  /** Voices that sound after this change and did not before: new requests admitted, refused ones that came back. */
  admitted: VoiceInfo[];
  /** Voices that were to sound and now do not (none of them has started): make sure they never sound. */
  withdrawn: VoiceInfo[];
  /** New requests refused by this change (with {@link LimiterChanges.reasons}). */
  refused: VoiceInfo[];
  /** Why each voice refused or withdrawn by this change gives way. */
  reasons: Map<number, string>;
  /**
   * Voices whose stealing moment moved: `at` is the audio time another voice takes their place
   * (they fade out from there), or null where they now play to their end.
   */
  cuts: {
    /** The voice. */
    voice: VoiceInfo;
    /** When another voice takes its place now, or null: it plays to its end. */
    at: number | null;
    /** Its moment before this change, or null. */
    was: number | null;
  }[];
  /** Admitted voices (not started) whose budget gain changed, new ones included where it is below 1. */
  gains: {
    /** The voice. */
    voice: VoiceInfo;
    /** Its budget gain now (0…1). */
    gain: number;
  }[];
}

/** The result of {@link VoiceLimiter.admit}: one new request. */
export interface AdmitResult {
  /** Whether the request was admitted. */
  admitted: boolean;
  /** Why it was refused. */
  reason?: string;
  /** Voices that will be stolen when it starts. */
  victims: VoiceInfo[];
  /** Everything the request changed. */
  changes: LimiterChanges;
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

/**
 * Below this gain (−30 dB) the class budget refuses a voice instead: under a pile at its loudness it
 * would not be heard, and the counts say what sounds.
 */
export const MIN_BUDGET_GAIN = 0.03;

/** Audio times closer than this are the same moment (float sums of scheduled times). */
const EPSILON = 1e-6;

/** One request in the timeline, with the decision taken for it. */
interface Held {
  voice: VoiceInfo;
  ignoreSoundLimit: boolean;
  budget: VoiceRequest['budget'];
  /** Its class budget's gain (1 unbudgeted). */
  gain: number;
  /** The voices it steals when it starts, by its last decision. */
  victims: Held[];
  /** Whether it has been decided before (a replay may then keep the decision). */
  decided: boolean;
  /** What it adds to its class's budget timeline now (gain, cut-off), or null. */
  contribution: { gain: number; until: number } | null;
  admitted: boolean;
  /** When another voice takes its place (it fades from here), or null: it plays to its end. */
  cut: number | null;
  reason: string;
}

/** Where a held voice stops counting: its end, or the moment it is stolen. */
const effectiveEnd = (held: Held): number => (held.cut === null ? held.voice.end : Math.min(held.cut, held.voice.end));

const byStart = (a: Held, b: Held): number => a.voice.start - b.voice.start || a.voice.id - b.voice.id;

/**
 * Voice limits with stealing, as game audio middleware does: each sound and each bus may hold at
 * most `max` voices; a new voice past a limit either steals one (the oldest, or the quietest right
 * now) or is refused. Pure bookkeeping on the audio clock; the graph fades stolen voices out over a
 * few milliseconds at the moment they are stolen.
 *
 * Decisions are made in audio-time order, whatever order the calls come in: each voice is judged at
 * the moment it starts, against the voices sounding at that moment, exactly as if every call had
 * been made at its own start time. A voice scheduled ahead therefore never competes before it
 * starts, and is never stolen before it has sounded: a voice asked for later but starting earlier
 * takes its place in the timeline and every decision from its start on is taken again (later
 * voices may then steal from it, be refused, or, when it frees a place, come back).
 */
export class VoiceLimiter {
  /** Admitted voices until they end, and refused requests until they would have started (they may come back). */
  private readonly held = new Map<number, Held>();
  private readonly perSound: Record<string, VoiceLimit>;
  private readonly perBus: Record<string, VoiceLimit>;
  private readonly defaultSound: VoiceLimit;
  private readonly budgets: Record<string, ClassBudget>;
  private readonly timelines = new Map<string, BudgetTimeline>();
  /** When false the per-sound limits are off (stress tests, benchmarks); bus limits still hold. */
  enabled = true;
  private stolenCount = 0;
  private refusedCount = 0;
  private admittedCount = 0;
  /** The latest audio time seen: {@link count} and {@link size} leave out voices gone by then. */
  private now = -Infinity;

  constructor(options: VoiceLimiterOptions = {}) {
    const resolved = withDefaults(VOICE_LIMITER_DEFAULTS, options);
    this.perSound = { ...resolved.perSound };
    this.perBus = { ...resolved.perBus };
    this.defaultSound = { ...resolved.defaultSound };
    this.budgets = { ...resolved.budgets };
  }

  /** Limit that applies to `sound`. */
  limitFor(sound: string): VoiceLimit {
    return this.perSound[sound] ?? this.defaultSound;
  }

  /**
   * Adds one request at audio time `now` and decides it (and anything it changes). An admitted voice
   * is held until it ends; `victims` are the voices it steals when it starts.
   */
  admit(request: VoiceRequest, now: number, options: { ignoreSoundLimit?: boolean } = {}): AdmitResult {
    const changes = this.update([{ ...request, ignoreSoundLimit: request.ignoreSoundLimit ?? options.ignoreSoundLimit }], [], now);
    const held = this.held.get(request.id);
    const admitted = held?.admitted ?? false;
    const victims = changes.cuts.filter((c) => c.at !== null && Math.abs(c.at - request.start) < EPSILON).map((c) => c.voice);
    return { admitted, victims, changes, ...(!admitted && { reason: changes.reasons.get(request.id) }) };
  }

  /**
   * Adds requests and removes voices (stopped early, or no longer wanted), then takes every decision
   * from the earliest moment they touch again, in audio-time order. Decisions before that moment
   * stand: they were taken on the same voices. `now` is the audio time: nothing before it changes.
   */
  update(add: readonly VoiceRequest[], remove: readonly number[], now: number): LimiterChanges {
    this.reap(now);
    let from = Infinity;
    const touched: VoiceInfo[] = [];
    const before = new Map<number, { admitted: boolean; cut: number | null; gain: number }>();
    const changes: LimiterChanges = { admitted: [], withdrawn: [], refused: [], reasons: new Map(), cuts: [], gains: [] };
    for (const id of remove) {
      const held = this.held.get(id);
      if (!held) continue;
      // A voice stopped while it sounds frees its place from now on; one not started, from its start.
      from = Math.min(from, Math.max(now, held.voice.start));
      touched.push(held.voice);
      // What it played stays in its class's budget; from now (or, not started, all of it) it is gone.
      if (held.admitted) this.contribute(held, held.gain, Math.max(now, held.voice.start));
      this.forgetHeld(held);
      // The counts say what sounds: a voice removed before it started never did, nor was a pending steal.
      if (held.admitted) {
        if (held.voice.start >= now) this.admittedCount--;
        if (held.cut !== null) this.stolenCount--;
      } else this.refusedCount--;
    }
    const added = new Set<number>();
    for (const request of add) {
      const { ignoreSoundLimit, budget, ...voice } = request;
      if (this.held.has(voice.id)) throw new Error(`VoiceLimiter: voice ${voice.id} is already held`);
      this.held.set(voice.id, {
        voice,
        ignoreSoundLimit: ignoreSoundLimit ?? false,
        budget,
        gain: 1,
        admitted: false,
        cut: null,
        reason: '',
        victims: [],
        decided: false,
        contribution: null,
      });
      added.add(voice.id);
      from = Math.min(from, Math.max(now, voice.start));
    }
    if (from === Infinity) return changes;
    for (const [id, held] of this.held) before.set(id, { admitted: held.admitted, cut: held.cut, gain: held.gain });
    this.replayFrom(from, touched);
    for (const [id, held] of this.held) {
      const was = before.get(id)!;
      const isNew = added.has(id);
      if (held.admitted && (isNew || !was.admitted)) {
        changes.admitted.push(held.voice);
        this.admittedCount++;
        if (!isNew) this.refusedCount--;
      } else if (!held.admitted && (isNew || was.admitted)) {
        (isNew ? changes.refused : changes.withdrawn).push(held.voice);
        changes.reasons.set(id, held.reason);
        this.refusedCount++;
        if (!isNew) this.admittedCount--;
      }
      const wasCut = isNew || !was.admitted ? null : was.cut;
      const cut = held.admitted ? held.cut : null;
      if (cut !== wasCut && held.admitted) changes.cuts.push({ voice: held.voice, at: cut, was: wasCut });
      if (held.admitted && held.gain !== (isNew || !was.admitted ? 1 : was.gain))
        changes.gains.push({ voice: held.voice, gain: held.gain });
      if (!isNew && was.admitted) this.stolenCount -= was.cut === null ? 0 : 1;
      if (held.admitted) this.stolenCount += held.cut === null ? 0 : 1;
    }
    return changes;
  }

  /** Removes voices at `now` (stopped early): decisions after they free their place are taken again. */
  remove(ids: number | readonly number[], now: number): LimiterChanges {
    return this.update([], typeof ids === 'number' ? [ids] : ids, now);
  }

  /** Forgets a voice that has ended (its end is already in every decision; nothing is retaken). */
  forget(id: number): void {
    const held = this.held.get(id);
    if (held) this.forgetHeld(held);
  }

  /** Drops voices that have finished by `now` and refusals that can no longer come back; returns how many voices ended. */
  reap(now: number): number {
    this.now = Math.max(this.now, now);
    for (const timeline of this.timelines.values()) timeline.trim(now - 2 * LOUDNESS_WINDOW);
    let removed = 0;
    for (const [id, held] of this.held) {
      if (held.admitted ? effectiveEnd(held) <= now : held.voice.start < now) {
        this.held.delete(id);
        if (held.admitted) removed++;
      }
    }
    return removed;
  }

  /** Admitted voices sounding or scheduled (not ended nor stolen by the latest audio time seen). */
  get size(): number {
    return this.list(() => true).length;
  }

  /** Admitted voices sounding or scheduled (not ended nor stolen by the latest audio time seen), optionally of one sound or bus. */
  count(filter: { sound?: string; bus?: string } = {}): number {
    return this.list((v) => (filter.sound === undefined || v.sound === filter.sound) && (filter.bus === undefined || v.bus === filter.bus))
      .length;
  }

  /** Voices sounding at audio time `time` (started, not ended nor stolen), optionally of one sound or bus. */
  soundingAt(time: number, filter: { sound?: string; bus?: string } = {}): number {
    let n = 0;
    for (const held of this.held.values()) {
      const v = held.voice;
      if (!held.admitted || v.start > time || effectiveEnd(held) <= time) continue;
      if ((filter.sound === undefined || v.sound === filter.sound) && (filter.bus === undefined || v.bus === filter.bus)) n++;
    }
    return n;
  }

  /** When `id` is stolen (null: it plays to its end, or is not held). */
  cutOf(id: number): number | null {
    return this.held.get(id)?.cut ?? null;
  }

  /** The budget gain of `id` (1 when unbudgeted or not held). */
  gainOf(id: number): number {
    return this.held.get(id)?.gain ?? 1;
  }

  /** Whether `id` is held and admitted. */
  isAdmitted(id: number): boolean {
    return this.held.get(id)?.admitted ?? false;
  }

  /** Voices stolen while sounding (or to be, for those scheduled ahead) since construction. */
  get stolen(): number {
    return this.stolenCount;
  }

  /** Requests refused (or withdrawn before they started) since construction, less those that came back or were removed. */
  get refused(): number {
    return this.refusedCount;
  }

  /** Requests admitted (sounding, sounded or to sound) since construction, less those removed before they started. */
  get admitted(): number {
    return this.admittedCount;
  }

  /** Forgets every voice and class timeline. */
  clear(): void {
    this.held.clear();
    this.timelines.clear();
  }

  private forgetHeld(held: Held): void {
    this.held.delete(held.voice.id);
  }

  private list(filter: (voice: VoiceInfo) => boolean): VoiceInfo[] {
    const out: VoiceInfo[] = [];
    for (const held of this.held.values()) if (held.admitted && effectiveEnd(held) > this.now && filter(held.voice)) out.push(held.voice);
    return out;
  }

  /**
   * Takes every decision from audio time `from` on again: voices that start earlier keep theirs
   * (stealing moments at or after `from` are retaken, they were made by voices starting then); each
   * voice starting at or after `from` is judged, in start order, against the voices sounding then.
   * A voice whose inputs did not change (no changed voice rings near it, `touched` are the removed
   * ones) keeps its last decision without being judged again, so a change costs what it touches.
   */
  private replayFrom(from: number, touched: readonly VoiceInfo[]): void {
    const active: Held[] = [];
    const pending: Held[] = [];
    for (const held of this.held.values()) {
      if (held.voice.start < from - EPSILON) {
        if (!held.admitted) continue;
        if (held.cut !== null && held.cut >= from - EPSILON) {
          held.cut = null;
          this.contribute(held, held.gain);
        }
        active.push(held);
      } else pending.push(held);
    }
    pending.sort(byStart);
    for (const held of pending) {
      held.cut = null;
      this.contribute(held, null);
    }
    // Voices whose decision or stealing moment differs from before: what later decisions must look at.
    const changed: VoiceInfo[] = [...touched];
    const near = (voice: VoiceInfo): boolean =>
      changed.some((c) => c !== voice && c.start < voice.end + EPSILON && c.end + LOUDNESS_WINDOW > voice.start - EPSILON);
    for (const held of pending) {
      const t = held.voice.start;
      if (held.decided && !near(held.voice)) {
        if (!held.admitted) continue;
        for (const victim of held.victims) this.cutAt(victim, t);
        this.contribute(held, held.gain);
        active.push(held);
        continue;
      }
      const was = { admitted: held.admitted, gain: held.gain, victims: held.victims };
      held.reason = '';
      const sounding = active.filter((a) => a.voice.start <= t + EPSILON && effectiveEnd(a) > t + EPSILON);
      const victims = this.decide(held, sounding);
      held.admitted = victims !== null;
      held.victims = victims ?? [];
      held.gain = 1;
      if (victims !== null) {
        for (const victim of victims) this.cutAt(victim, t);
        held.gain = this.budgetGainOf(held, active);
        if (held.gain < MIN_BUDGET_GAIN) {
          // The class is full: a voice this far down would not be heard, so it is refused (and steals nothing).
          for (const victim of victims) this.uncut(victim);
          held.admitted = false;
          held.victims = [];
          held.reason = `${held.budget!.soundClass}: the class's budget is spent (it would play at ${(20 * Math.log10(Math.max(held.gain, 1e-6))).toFixed(0)} dB)`;
          held.gain = 1;
        } else {
          this.contribute(held, held.gain);
          active.push(held);
        }
      }
      if (!held.decided || was.admitted !== held.admitted || was.gain !== held.gain) changed.push(held.voice);
      for (const v of was.victims) if (!held.victims.includes(v)) changed.push(v.voice);
      for (const v of held.victims) if (!was.victims.includes(v)) changed.push(v.voice);
      held.decided = true;
    }
  }

  /** The gain its class budget leaves `held`, given the class's voices decided before it (in its timeline). */
  private budgetGainOf(held: Held, active: readonly Held[]): number {
    const budget = held.budget && this.budgets[held.budget.soundClass];
    if (!budget || !held.budget || held.ignoreSoundLimit) return 1;
    const soundClass = held.budget.soundClass;
    const { start, end } = held.voice;
    const loudest = { amplitude: 0, energy: 0 };
    let members = 0;
    for (const other of active) {
      if (other.budget?.soundClass !== soundClass || !other.contribution) continue;
      // Voices that ring during its life, or whose last 400 ms window reaches into it.
      if (other.voice.start >= end || effectiveEnd(other) + LOUDNESS_WINDOW <= start) continue;
      members++;
      loudest.amplitude = Math.max(loudest.amplitude, other.budget.envelope.peakAmplitude);
      loudest.energy = Math.max(loudest.energy, other.budget.envelope.peakEnergy);
    }
    return members === 0 ? 1 : budgetGainOn(held.budget.envelope, start, this.timelineOf(soundClass), loudest, budget);
  }

  private timelineOf(soundClass: string): BudgetTimeline {
    let timeline = this.timelines.get(soundClass);
    if (!timeline) this.timelines.set(soundClass, (timeline = new BudgetTimeline()));
    return timeline;
  }

  /** Sets what `held` adds to its class's timeline: `gain` up to `until`, or nothing (null). */
  private contribute(held: Held, gain: number | null, until = Infinity): void {
    const budget = held.budget;
    if (!budget || !this.budgets[budget.soundClass] || held.ignoreSoundLimit) return;
    const timeline = this.timelineOf(budget.soundClass);
    const was = held.contribution;
    if (was && gain !== null && was.gain === gain && was.until === until) return;
    if (was) timeline.add(budget.envelope, held.voice.start, was.gain, was.until, -1);
    held.contribution = gain === null || gain <= 0 ? null : { gain, until };
    if (held.contribution) timeline.add(budget.envelope, held.voice.start, gain!, until, 1);
  }

  /** Takes back a steal decided a moment ago (the stealer was refused after all). */
  private uncut(held: Held): void {
    held.cut = null;
    if (held.contribution) this.contribute(held, held.gain);
  }

  /** Another voice takes `held`'s place at `time`. */
  private cutAt(held: Held, time: number): void {
    held.cut = time;
    if (held.contribution) this.contribute(held, held.gain, time);
  }

  /** Judges `candidate` against the voices sounding when it starts: the voices it steals, or null (refused; reason set). */
  private decide(candidate: Held, sounding: Held[]): Held[] | null {
    const voice = candidate.voice;
    const victims: Held[] = [];
    if (this.enabled && !candidate.ignoreSoundLimit) {
      const limit = this.limitFor(voice.sound);
      if (
        !this.makeRoom(
          sounding.filter((h) => h.voice.sound === voice.sound),
          limit,
          voice,
          victims,
        )
      ) {
        candidate.reason = `${voice.sound}: ${limit.max} voices playing (steal: ${limit.steal})`;
        return null;
      }
    }
    const busLimit = this.perBus[voice.bus];
    if (busLimit) {
      const pool = sounding.filter((h) => h.voice.bus === voice.bus && !victims.includes(h));
      if (!this.makeRoom(pool, busLimit, voice, victims)) {
        candidate.reason = `bus ${voice.bus}: ${busLimit.max} voices playing (steal: ${busLimit.steal})`;
        return null;
      }
    }
    return victims;
  }

  /**
   * Picks victims from `pool` (voices sounding at the candidate's start) until fewer than
   * `limit.max` remain. Only voices that started before the candidate may give way: one starting at
   * the same moment has not sounded yet, and the first asked for keeps its place.
   */
  private makeRoom(pool: Held[], limit: VoiceLimit, candidate: VoiceInfo, victims: Held[]): boolean {
    const chosen: Held[] = [];
    let rest = pool;
    while (rest.length >= limit.max) {
      const pick = chooseVictim(
        rest.filter((h) => h.voice.start < candidate.start - EPSILON),
        limit,
        candidate,
      );
      if (!pick) return false;
      chosen.push(pick);
      rest = rest.filter((h) => h !== pick);
    }
    victims.push(...chosen);
    return true;
  }
}

/** The voice of `pool` that gives way to `candidate` under `limit`, or null when the candidate is refused. */
function chooseVictim(pool: Held[], limit: VoiceLimit, candidate: VoiceInfo): Held | null {
  if (limit.steal === 'none' || pool.length === 0) return null;
  if (limit.steal === 'oldest') {
    // Ties (voices started together) go to the lower id: the one asked for first.
    return pool.reduce((a, b) => (b.voice.start < a.voice.start || (b.voice.start === a.voice.start && b.voice.id < a.voice.id) ? b : a));
  }
  // Loudness when the candidate starts (every voice in the pool started before it).
  const levelOf = (held: Held): number => held.gain * voiceLevelAt(held.voice, candidate.start);
  let quietest = pool[0]!;
  let quietestLevel = levelOf(quietest);
  for (const held of pool) {
    const level = levelOf(held);
    if (level < quietestLevel) {
      quietest = held;
      quietestLevel = level;
    }
  }
  return candidate.peak >= quietestLevel ? quietest : null;
}

/**
 * Per-sound cooldowns: a trigger that comes within a sound's cooldown after its last accepted
 * trigger is skipped, so a burst of identical events (twenty slabs hit in one frame) cannot stack
 * the same sound into a wall of noise. Pure; times in seconds (the audio clock), cooldowns in ms.
 *
 * Judged in audio-time order, whatever order the calls come in: the triggers of a sound are kept in
 * time order and each is accepted when it is at least the cooldown after the last accepted one
 * before it, exactly as if every call had been made at its own time. A trigger asked for later but
 * due earlier takes its place: a later trigger it shadows is skipped from then on (displaced), and
 * one that the displaced trigger had shadowed comes back (revived). So fifty strikes inside 49 ms
 * give the same two strikes latest-first as earliest-first.
 */

/** What one trigger changed. */
export interface CooldownDecision {
  /** Whether the new trigger is accepted. */
  accepted: boolean;
  /** Whether the new trigger is remembered: accepted, or skipped but able to come back (see {@link CooldownDecision.revived}). */
  kept: boolean;
  /** Triggers accepted before (due later) that are skipped now: cancel them if they were scheduled. */
  displaced: number[];
  /** Triggers skipped before that are accepted now: schedule them. */
  revived: number[];
}

interface Trigger {
  id: number;
  /** Call order. */
  seq: number;
  time: number;
  accepted: boolean;
}

/**
 * Skipped triggers kept per sound in case an earlier one frees their place. Past this many the
 * oldest-asked skipped trigger is forgotten for good (a flood scheduled far ahead stays bounded).
 */
export const MAX_PENDING_TRIGGERS = 256;

/** Per-sound cooldowns, judged in audio-time order (see the file's comment). */
export class Cooldowns {
  /** Per sound, the triggers that can still matter, in time order (ties: call order). */
  private readonly bySound = new Map<string, Trigger[]>();
  private skippedCount = 0;
  private seq = 0;

  /**
   * Judges a trigger of `sound` at audio time `time` with the sound's cooldown. `id` names it in
   * `displaced` and `revived` (the caller's voice id); `now` (the audio clock) lets triggers that can
   * no longer matter go. A cooldown of 0 always accepts.
   */
  request(sound: string, time: number, cooldownMs: number, id = -1, now = -Infinity): CooldownDecision {
    const decision: CooldownDecision = { accepted: true, kept: false, displaced: [], revived: [] };
    if (!(cooldownMs > 0)) return decision;
    const cooldown = cooldownMs / 1000;
    const list = this.prune(sound, now, cooldown);
    // A trigger at the very time of one already asked for is skipped for good: whatever becomes of
    // the first (accepted, or skipped by an earlier one), it shadows this one.
    let index = list.length;
    while (index > 0 && list[index - 1]!.time > time) index--;
    if (index > 0 && list[index - 1]!.time === time) {
      this.skippedCount++;
      decision.accepted = false;
      return decision;
    }
    const trigger: Trigger = { id, seq: this.seq++, time, accepted: false };
    list.splice(index, 0, trigger);
    let last: Trigger | undefined;
    for (let i = index - 1; i >= 0 && !last; i--) if (list[i]!.accepted) last = list[i];
    for (let i = index; i < list.length; i++) {
      const t = list[i]!;
      const accepted = last === undefined || !(t.time - last.time < cooldown);
      if (t !== trigger && accepted !== t.accepted) (accepted ? decision.revived : decision.displaced).push(t.id);
      t.accepted = accepted;
      if (accepted) last = t;
    }
    decision.accepted = trigger.accepted;
    decision.kept = true;
    this.skippedCount += (trigger.accepted ? 0 : 1) + decision.displaced.length - decision.revived.length;
    if (this.bound(list) === trigger) decision.kept = false;
    return decision;
  }

  /** Returns true (and records the trigger) when `sound` is out of its cooldown at `time`; false (a skip) inside it. */
  tryTrigger(sound: string, time: number, cooldownMs: number): boolean {
    return this.request(sound, time, cooldownMs).accepted;
  }

  /** Triggers skipped since construction (or {@link reset}), less those that came back. */
  get skipped(): number {
    return this.skippedCount;
  }

  /** Forgets every sound's triggers (a new context starts its clock at 0). */
  reset(): void {
    this.bySound.clear();
    this.skippedCount = 0;
  }

  /**
   * The triggers of `sound` that can still matter at `now`: accepted ones whose cooldown reaches
   * past it (a trigger is never earlier than now) and skipped ones not yet due (they may come back).
   */
  private prune(sound: string, now: number, cooldown: number): Trigger[] {
    const list = this.bySound.get(sound);
    // Replays start at a new trigger, never before now: skipped triggers before now are final, and an
    // accepted one whose cooldown ended by now shadows nothing a new trigger can be.
    const kept = list ? list.filter((t) => (t.accepted ? t.time + cooldown > now : t.time >= now)) : [];
    this.bySound.set(sound, kept);
    return kept;
  }

  /** Forgets the skipped trigger asked for first when too many wait; returns it. */
  private bound(list: Trigger[]): Trigger | null {
    let pending = 0;
    for (const t of list) if (!t.accepted) pending++;
    if (pending <= MAX_PENDING_TRIGGERS) return null;
    // The skipped trigger asked for first gives way.
    let oldest = -1;
    for (let i = 0; i < list.length; i++) {
      const t = list[i]!;
      if (!t.accepted && (oldest < 0 || t.seq < list[oldest]!.seq)) oldest = i;
    }
    return list.splice(oldest, 1)[0]!;
  }
}

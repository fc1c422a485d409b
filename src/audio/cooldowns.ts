/**
 * Per-sound cooldowns: a trigger that arrives within a sound's cooldown of its last accepted
 * trigger is skipped, so a burst of identical events (twenty slabs hit in one frame) cannot stack
 * the same sound into a wall of noise. Pure; times in seconds (the audio clock), cooldowns in ms.
 */
export class Cooldowns {
  private readonly last = new Map<string, number>();
  private skippedCount = 0;

  /**
   * Returns true and records the trigger when `sound` is out of its cooldown at `now`; returns
   * false (and counts a skip) inside it. A cooldown of 0 always accepts.
   */
  tryTrigger(sound: string, now: number, cooldownMs: number): boolean {
    const previous = this.last.get(sound);
    if (cooldownMs > 0 && previous !== undefined && now - previous < cooldownMs / 1000 && now >= previous) {
      this.skippedCount++;
      return false;
    }
    this.last.set(sound, now);
    return true;
  }

  /** Triggers skipped since construction (or {@link reset}). */
  get skipped(): number {
    return this.skippedCount;
  }

  /** Forgets every sound's last trigger (a new context starts its clock at 0). */
  reset(): void {
    this.last.clear();
    this.skippedCount = 0;
  }
}

import type { WirePosition } from './protocol/signaling.ts';

/** Avatar ids that entered and left hearing range. */
export interface VoiceHearingChange {
  /** Avatar ids that came within hearing range. */
  added: readonly number[];
  /** Avatar ids that left it. */
  removed: readonly number[];
}

/**
 * Who is within hearing range, by avatar id — what {@link VoiceChat} connects to when it follows
 * hearing range instead of the whole room. Voice does not depend on the net module: the world
 * plugin adapts the net session (its `hearing.ids`, `events.on('hearing')` and peer table) to
 * this shape. The set must carry its own hysteresis (enter ≤ 24 m, leave > 32 m in Cairn's), so
 * a peer pacing at the edge does not make voice dial and hang up.
 */
export interface VoiceHearingSource {
  /** Avatar ids within hearing range now. */
  readonly ids: ReadonlySet<number>;
  /** Calls `listener` whenever {@link ids} changes; returns the function that unsubscribes. */
  onChange(listener: (change: VoiceHearingChange) => void): () => void;
  /**
   * Where an avatar stands now, or null when unknown. When given, voices are placed where their
   * avatars are and no positions go through the voice room; without it, positions travel through
   * the room as in the full mesh.
   */
  positionOf?(avatarId: number): WirePosition | null;
  /** False while the source is not connected to anything yet (the HUD says so). Default true. */
  readonly ready?: boolean;
}

const NOBODY: ReadonlySet<number> = new Set<number>();

/**
 * A hearing source to hand to VoiceChat before the real one exists (avatar sync may start after
 * voice): nobody is in range until {@link bind}, which then reports everyone already in range of
 * the bound source as added and forwards its changes from then on. Binding another source reports
 * the difference. Pure (no DOM, no net).
 */
export class DeferredHearing implements VoiceHearingSource {
  private source: VoiceHearingSource | null = null;
  private unsubscribe: (() => void) | null = null;
  private readonly listeners = new Set<(change: VoiceHearingChange) => void>();

  get ids(): ReadonlySet<number> {
    return this.source?.ids ?? NOBODY;
  }

  get ready(): boolean {
    return this.source !== null && this.source.ready !== false;
  }

  /** The source bound now, or null. */
  get bound(): VoiceHearingSource | null {
    return this.source;
  }

  onChange(listener: (change: VoiceHearingChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  positionOf(avatarId: number): WirePosition | null {
    return this.source?.positionOf?.(avatarId) ?? null;
  }

  /** Follows `source` from now on (null: nobody in range again). */
  bind(source: VoiceHearingSource | null): void {
    if (source === this.source) return;
    const before = [...this.ids];
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.source = source;
    if (source) this.unsubscribe = source.onChange((change) => this.emit(change));
    const after = this.ids;
    const added = [...after].filter((id) => !before.includes(id));
    const removed = before.filter((id) => !after.has(id));
    if (added.length || removed.length) this.emit({ added, removed });
  }

  /** Stops following the source and removes every listener. */
  dispose(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.source = null;
    this.listeners.clear();
  }

  private emit(change: VoiceHearingChange): void {
    for (const listener of [...this.listeners]) listener(change);
  }
}

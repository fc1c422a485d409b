import { withDefaults } from '../core/options.ts';
import type { Layer } from './layers.ts';
import { beatSeconds, chordAt, CAIRN_PROGRESSION, type Chord, type Progression } from './music-theory.ts';
import { notesForBeat, DEFAULT_MUSIC_MIX, type MusicMix } from './music-score.ts';
import type { BusName } from './recipes/recipe.ts';

/** What the music player needs from its host: the clock and a way to play layers as voices. */
export interface MusicHost {
  /** The audio clock. */
  readonly context: BaseAudioContext;
  /** Plays `layers` as one voice named `sound` on `bus` at audio time `at`. */
  playLayers(sound: string, bus: BusName, layers: Layer[], at: number): unknown;
}

/** Options of a {@link MusicPlayer}. */
export interface MusicPlayerOptions {
  /** The chords and tempo. Default {@link CAIRN_PROGRESSION}. */
  progression?: Progression;
  /** Seed of the arpeggio patterns. */
  seed?: number;
  /** Gain of each voice (pad, bass, arpeggio). Default {@link DEFAULT_MUSIC_MIX}. */
  mix?: MusicMix;
}

/** Defaults of a {@link MusicPlayer}: Cairn's progression, seed 1, the default music mix. */
const MUSIC_PLAYER_DEFAULTS: Required<MusicPlayerOptions> = {
  progression: CAIRN_PROGRESSION,
  seed: 1,
  mix: DEFAULT_MUSIC_MIX,
};

/**
 * The procedural music: schedules the score (music-score.ts) beat by beat ahead of the audio clock
 * and tells effects which chord is sounding. Scheduling is explicit (`scheduleUntil`), so the live
 * engine calls it from a timer with a lookahead and an offline render calls it once for the span.
 */
export class MusicPlayer {
  /** The chords and tempo. */
  readonly progression: Progression;
  private readonly seed: number;
  private readonly mix: MusicMix;
  private startTime = Number.NaN;
  private nextBeat = 0;

  private readonly host: MusicHost;

  constructor(host: MusicHost, options: MusicPlayerOptions = {}) {
    this.host = host;
    ({ progression: this.progression, seed: this.seed, mix: this.mix } = withDefaults(MUSIC_PLAYER_DEFAULTS, options));
  }

  /** True between {@link start} and {@link stop}. */
  get playing(): boolean {
    return !Number.isNaN(this.startTime);
  }

  /** Starts the progression at audio time `at` (default: a beat's breath from now). */
  start(at = this.host.context.currentTime + 0.05): void {
    this.startTime = at;
    this.nextBeat = 0;
  }

  /** Stops scheduling beats; notes already scheduled play out. */
  stop(): void {
    this.startTime = Number.NaN;
  }

  /** Schedules every beat that starts before `time`. Beats the clock has already passed are skipped, not crammed in. */
  scheduleUntil(time: number): number {
    if (!this.playing) return 0;
    const beatDur = beatSeconds(this.progression);
    const now = this.host.context.currentTime;
    let scheduled = 0;
    while (this.startTime + this.nextBeat * beatDur < time) {
      const beatTime = this.startTime + this.nextBeat * beatDur;
      // After a stall (hidden tab, a long frame) drop beats already in the past instead of firing them together.
      if (beatTime >= now - 0.05) {
        for (const note of notesForBeat(this.progression, this.nextBeat, this.seed, this.mix)) {
          this.host.playLayers(`music-${note.voice}`, 'music', [note.layer], beatTime);
          scheduled++;
        }
      }
      this.nextBeat++;
    }
    return scheduled;
  }

  /** The chord sounding at audio time `time`; the first chord (the tonic) when the music is off. */
  chordAt(time = this.host.context.currentTime): Chord {
    if (!this.playing) return this.progression.chords[0]!;
    return chordAt(this.progression, time - this.startTime).chord;
  }
}

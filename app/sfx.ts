import * as audio from '../src/audio/index.ts';
import {
  AudioEngine,
  RECIPE_NAMES,
  RECIPES,
  SURFACES,
  GAMEPLAY_SLICE,
  playSlice,
  toDb,
  type BusVolumes,
  type RecipeName,
} from '../src/audio/index.ts';
import { pageCairn } from './cairn.ts';

/** What the sound page publishes as `cairn.sfx` (the module itself, for tests that render offline). */
export interface SfxLab {
  audio: typeof audio;
  /** Plays the scripted gameplay slice; returns its start on the audio clock. */
  playSlice(): number;
  /** Twenty strikes at once (or `count`); returns the start on the audio clock. */
  flood(count?: number): number;
}

declare module '../src/world/cairn-global.ts' {
  interface CairnGlobal {
    /** The sound page's lab. */
    sfx?: SfxLab;
  }
}

/**
 * The sound page: every recipe on a button, the mix controls, the output meters after the soft
 * clipper, a scripted gameplay slice and a flood. `?seed=N` fixes the random sequence (test mode).
 * Publishes `cairn.audio` (the engine), `cairn.stats.audio` and `cairn.sfx` (the module, for tests).
 */
const cairn = pageCairn();
const params = new URLSearchParams(location.search);
const seedParam = params.get('seed');
const engine = new AudioEngine({
  seed: seedParam === null ? undefined : Number(seedParam),
  strict: params.get('strict') === '1' ? true : undefined,
  // The page's controls start with music on and a breeze (standalone use opts in, as a game does).
  music: true,
  ambience: { wind: 0.5, fire: 0 },
});
cairn.audio = engine;
cairn.stats.audio = engine.stats;
cairn.sfx = { audio, playSlice: () => playGameplaySlice(), flood: () => flood() };

const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
const surface = $<HTMLSelectElement>('surface');
const crackCount = $<HTMLInputElement>('crack-count');
const intensity = $<HTMLInputElement>('intensity');

for (const name of SURFACES) surface.append(new Option(name, name));

function paramsFor(name: RecipeName): Record<string, unknown> {
  const k = Number(intensity.value);
  switch (name) {
    case 'strike':
    case 'groan':
      return { intensity: k };
    case 'crack-line':
      return { count: Number(crackCount.value), intensity: k };
    case 'footstep':
      return { surface: surface.value, intensity: Math.max(0.2, k) };
    case 'jump':
      return { surface: surface.value };
    case 'land':
      return { surface: surface.value, impact: 6 * k };
    default:
      return {};
  }
}

const grid = $('recipes');
for (const name of RECIPE_NAMES) {
  const button = document.createElement('button');
  button.type = 'button';
  button.textContent = name;
  button.title = RECIPES[name].summary;
  button.dataset.recipe = name;
  button.addEventListener('click', () => engine.play(name, paramsFor(name)));
  grid.append(button);
}

const volumes = $('volumes');
for (const bus of ['master', 'effects', 'music', 'ambience', 'ui'] as (keyof BusVolumes)[]) {
  const label = document.createElement('label');
  const input = document.createElement('input');
  Object.assign(input, { type: 'range', min: '0', max: '1.5', step: '0.05', value: String(engine.getVolume(bus)) });
  input.dataset.bus = bus;
  input.addEventListener('input', () => engine.setVolume(bus, Number(input.value)));
  label.append(`${bus} `, input);
  volumes.append(label);
}

$<HTMLInputElement>('music').addEventListener('change', (e) => engine.setMusic((e.target as HTMLInputElement).checked));
$<HTMLInputElement>('wind').addEventListener('input', (e) => engine.setAmbience({ wind: Number((e.target as HTMLInputElement).value) }));
$<HTMLInputElement>('fire').addEventListener('input', (e) => engine.setAmbience({ fire: Number((e.target as HTMLInputElement).value) }));
$<HTMLInputElement>('paused').addEventListener('change', (e) => engine.setPaused((e.target as HTMLInputElement).checked));
const muteButton = $<HTMLButtonElement>('mute');
muteButton.addEventListener('click', () => engine.toggleMute());
$('slice').addEventListener('click', () => playGameplaySlice());
$('flood').addEventListener('click', () => flood());
$('meter-reset').addEventListener('click', () => engine.resetMeters());

// Menu sounds for every control that is not itself a recipe button.
document.addEventListener('click', (event) => {
  const control = (event.target as HTMLElement).closest('button, input[type="checkbox"]');
  if (control && !(control as HTMLElement).dataset.recipe) engine.play('ui-click');
});

/** Plays the scripted slice from a moment from now; returns when (audio time) it starts. */
function playGameplaySlice(): number {
  const start = (engine.context?.currentTime ?? 0) + 0.15;
  if (engine.state === 'running') playSlice(engine, start, GAMEPLAY_SLICE);
  return start;
}

/** Twenty strikes in the same instant, guards off: what the limiter and soft clipper are for. */
function flood(count = 20): number {
  const at = (engine.context?.currentTime ?? 0) + 0.05;
  for (let i = 0; i < count; i++) engine.play('strike', { intensity: 1.5 }, { at, bypassGuards: true });
  return at;
}

const stateLine = $('sfx-state');
const statsBox = $('sfx-stats');
/** Position on a scale from `low` to `high` dB (dBFS −60…0, LUFS −50…−5), percent. */
const position = (db: number, low: number, high: number): number => Math.max(0, Math.min(100, ((db - low) / (high - low)) * 100));
const text = (id: string, value: string): void => void ($(id).textContent = value);
const fmt = (db: number): string => (db <= -119.9 ? '−∞' : db.toFixed(1));

/** Meters read cairn.stats.audio only: the page shows exactly what tests assert. */
function drawMeters(): void {
  const s = engine.stats;
  const l = s.loudness;
  stateLine.dataset.state = s.state;
  stateLine.textContent =
    s.state === 'running'
      ? `Sound on${s.muted ? ' (muted)' : ''} · ${s.sampleRate} Hz · ${s.chord || 'no music'}`
      : s.state === 'waiting'
        ? 'Click anywhere or press a key to turn sound on.'
        : `Sound ${s.state}: ${s.reason}`;
  $('meter-rms').style.width = `${(100 - position(toDb(s.rms), -60, 0)).toFixed(1)}%`;
  $('meter-peak').style.width = `${(100 - position(toDb(s.peak), -60, 0)).toFixed(1)}%`;
  $('meter-hold').style.left = `${position(toDb(s.peakHold), -60, 0).toFixed(1)}%`;
  text('meter-rms-db', `${s.rmsDb.toFixed(1)} dB`);
  text('meter-peak-db', `${s.peakDb.toFixed(1)} dB`);
  $('meter-tp').style.width = `${(100 - position(l.truePeakDb, -60, 0)).toFixed(1)}%`;
  $('meter-tp-hold').style.left = `${position(l.truePeakHoldDb, -60, 0).toFixed(1)}%`;
  text('meter-tp-db', `${fmt(l.truePeakHoldDb)} dBTP`);
  $('meter-m').style.width = `${(100 - position(l.momentary, -50, -5)).toFixed(1)}%`;
  $('meter-m-max').style.left = `${position(l.momentaryMax, -50, -5).toFixed(1)}%`;
  $('meter-s').style.width = `${(100 - position(l.shortTerm, -50, -5)).toFixed(1)}%`;
  $('meter-s-max').style.left = `${position(l.shortTermMax, -50, -5).toFixed(1)}%`;
  $('meter-i').style.width = `${(100 - position(l.integrated, -50, -5)).toFixed(1)}%`;
  text('meter-m-db', fmt(l.momentary));
  text('meter-s-db', fmt(l.shortTerm));
  text('meter-i-db', fmt(l.integrated));
  text(
    'meter-source',
    l.source === 'worklet'
      ? `max M ${fmt(l.momentaryMax)} · max S ${fmt(l.shortTermMax)} LUFS · max ${fmt(l.truePeakMaxDb)} dBTP`
      : l.source === 'analyser'
        ? 'analyser fallback: no LUFS, short peaks can be missed'
        : '',
  );
  muteButton.setAttribute('aria-pressed', String(s.muted));
  requestAnimationFrame(drawMeters);
}
requestAnimationFrame(drawMeters);
setInterval(() => {
  const s = engine.stats;
  statsBox.textContent = [
    `state ${s.state} (context ${s.contextState})  voices ${s.voices}  fx ${s.voicesByBus.effects} · music ${s.voicesByBus.music} · amb ${s.voicesByBus.ambience} · ui ${s.voicesByBus.ui}`,
    `triggered ${s.triggered}  played ${s.played}  cooldown-skipped ${s.skippedCooldown}  refused ${s.refused}  stolen ${s.stolen}  unknown ${s.unknown}  queued ${s.queued}  dropped ${s.dropped}`,
    `peak hold ${toDb(s.peakHold).toFixed(1)} dB  max ${toDb(s.maxPeak).toFixed(1)} dB  latency ${(s.outputLatency * 1000).toFixed(0)} ms  underruns ${s.underruns ?? 'n/a'}  seed ${s.seed}`,
  ].join('\n');
}, 250);

cairn.ready = true;

import type { HudRow } from '../world/hud.ts';
import { meterBar } from './level-meter.ts';
import type { AudioStats } from './audio-engine.ts';

const lufs = (db: number): string => (db <= -119.9 ? '−∞' : db.toFixed(1));

/** The audio HUD section, from `cairn.stats.audio` only (what the HUD shows is what tests read). */
export function audioHudRows(stats: AudioStats | undefined): HudRow[] {
  if (!stats) return [{ label: 'state', value: 'not installed', tone: 'warn' }];
  const rows: HudRow[] = [
    {
      label: 'state',
      value: stats.muted ? `${stats.state} (muted)` : stats.state,
      tone: stats.state === 'running' ? 'ok' : stats.state === 'waiting' ? undefined : 'warn',
    },
  ];
  if (stats.state === 'waiting') {
    rows.push({ label: 'sound', value: 'click or press a key' });
    return rows;
  }
  if (stats.reason && stats.state !== 'running') rows.push({ label: 'why', value: stats.reason });
  const peakTone = stats.peakHold >= 0.95 ? 'bad' : stats.peakHold >= 0.89 ? 'warn' : 'ok';
  rows.push(
    { label: 'rms', value: `${meterBar(stats.rms)} ${stats.rmsDb.toFixed(1)} dB` },
    { label: 'peak', value: `${meterBar(stats.peakHold)} ${stats.peakDb.toFixed(1)} dB`, tone: peakTone },
    ...(stats.loudness.source === 'worklet'
      ? [
          {
            label: 'loudness',
            value: `M ${lufs(stats.loudness.momentary)} · S ${lufs(stats.loudness.shortTerm)} · I ${lufs(stats.loudness.integrated)} LUFS · ${lufs(stats.loudness.truePeakHoldDb)} dBTP`,
            tone: stats.loudness.truePeakHoldDb > -1 ? ('warn' as const) : undefined,
          },
        ]
      : []),
    {
      label: 'voices',
      value: `${stats.voices} (fx ${stats.voicesByBus.effects} · music ${stats.voicesByBus.music} · amb ${stats.voicesByBus.ambience} · ui ${stats.voicesByBus.ui})`,
    },
  );
  if (stats.chord) rows.push({ label: 'chord', value: stats.chord });
  if (stats.paused) rows.push({ label: 'paused', value: 'muffled', tone: 'warn' });
  if (stats.underruns) rows.push({ label: 'underruns', value: String(stats.underruns), tone: 'warn' });
  if (stats.dropped) rows.push({ label: 'dropped', value: `${stats.dropped}: ${stats.dropReason}`, tone: 'warn' });
  return rows;
}

import type { HudRow } from '../world/hud.ts';
import type { VoiceStats } from './voice-stats.ts';

/** One row of the voice HUD section: a {@link HudRow} (imported as a type only, so this file stays pure). */
export type VoiceHudRow = HudRow;

function db(value: number): string {
  return value <= -120 ? '−∞ dB' : `${value.toFixed(0)} dB`;
}

/**
 * The voice HUD section, computed only from `cairn.stats.voice` (so the HUD shows what tests
 * assert): connection, mic level, denoiser (red when it failed), push-to-talk, delay countdown,
 * and one row per peer with connection state, bitrate, loss, RTT and FEC.
 */
export function voiceHudRows(stats: VoiceStats | undefined): VoiceHudRow[] {
  if (!stats) return [{ label: 'voice', value: 'not joined' }];
  const rows: VoiceHudRow[] = [];
  const stateTone = stats.state === 'open' ? 'ok' : stats.state === 'closed' || stats.state === 'idle' ? undefined : 'warn';
  rows.push({
    label: 'room',
    value: `${stats.room} · ${stats.state === 'open' ? `connected as ${stats.id}` : stats.state}`,
    ...(stateTone ? { tone: stateTone } : {}),
  });
  if (stats.audio === 'suspended') rows.push({ label: 'sound', value: 'click or press a key to hear voices', tone: 'warn' });
  if (stats.reconnects > 0) rows.push({ label: 'reconnects', value: String(stats.reconnects), tone: 'warn' });
  if (stats.lastSignalingError) rows.push({ label: 'signaling', value: stats.lastSignalingError, tone: 'warn' });

  const mic = stats.mic;
  if (mic.state === 'live') rows.push({ label: 'mic', value: db(mic.levelDb), ...(mic.levelDb > -60 ? { tone: 'ok' as const } : {}) });
  else if (mic.state === 'denied' || mic.state === 'unavailable')
    rows.push({ label: 'mic', value: `${mic.state} — listen only`, tone: 'bad' });
  else rows.push({ label: 'mic', value: mic.state });

  const d = stats.denoiser;
  if (d.state === 'failed')
    rows.push({ label: 'denoiser', value: `FAILED: ${d.error ?? 'unknown'} (high-pass + compressor)`, tone: 'bad' });
  else if (d.state === 'on') rows.push({ label: 'denoiser', value: `RNNoise on · voice ${(d.vad * 100).toFixed(0)}%`, tone: 'ok' });
  else rows.push({ label: 'denoiser', value: d.state });

  const ptt = stats.ptt;
  rows.push({
    label: 'talk',
    value: ptt.mode === 'open' ? 'open mic' : ptt.pressed ? 'push-to-talk · TALKING' : 'push-to-talk · hold V',
    ...(ptt.talking ? { tone: 'ok' as const } : {}),
  });

  const delay = stats.delay;
  if (delay.enabled) {
    const value =
      delay.phase === 'dumped'
        ? `DUMPED · resumes in ${delay.resumesIn.toFixed(1)} s`
        : delay.phase === 'building'
          ? `${delay.seconds} s · on air in ${delay.resumesIn.toFixed(1)} s`
          : `${delay.seconds} s · on air`;
    rows.push({ label: 'delay', value, tone: delay.phase === 'dumped' ? 'bad' : 'warn' });
  } else rows.push({ label: 'delay', value: 'off' });

  rows.push(
    stats.spatial === 'ready'
      ? { label: 'spatial', value: 'HRTF', tone: 'ok' }
      : { label: 'spatial', value: 'loading HRTF data… (voices unpanned)', tone: 'warn' },
  );
  rows.push({ label: 'output L/R', value: `${db(stats.output.leftDb)} / ${db(stats.output.rightDb)}` });

  if (stats.follows === 'hearing') {
    const avatar = stats.avatarId === null ? 'no avatar yet' : `avatar ${stats.avatarId}`;
    if (!stats.hearingReady) rows.push({ label: 'hearing', value: `waiting for avatar sync (${avatar})`, tone: 'warn' });
    else
      rows.push({
        label: 'hearing',
        value: `${stats.hearing.length} in range · ${stats.links} link${stats.links === 1 ? '' : 's'} of ${stats.roomPeers} in the room · ${avatar}`,
      });
  }
  if (stats.peers.length === 0)
    rows.push({ label: 'peers', value: stats.follows === 'hearing' ? 'nobody within earshot' : 'nobody else here' });
  for (const p of stats.peers) {
    const tone = p.connection === 'connected' ? 'ok' : p.connection === 'failed' ? 'bad' : 'warn';
    rows.push({ label: `peer ${p.id}`, value: `${p.connection}${p.distance === null ? '' : ` · ${p.distance.toFixed(1)} m`}`, tone });
    const rtt = Number.isFinite(p.rttMs) ? `${p.rttMs.toFixed(0)} ms` : '–';
    rows.push({ label: '  in/out', value: `${p.kbpsIn.toFixed(0)} / ${p.kbpsOut.toFixed(0)} kbps` });
    rows.push({
      label: '  loss · rtt',
      value: `${p.lossPercent.toFixed(1)}% · ${rtt}`,
      ...(p.lossPercent > 5 ? { tone: 'warn' as const } : {}),
    });
    rows.push({ label: '  fec · level', value: `${p.fecPackets} pkts · ${db(p.levelDb)}` });
  }
  const c = stats.connections;
  if (c.failures > 0) rows.push({ label: 'webrtc errors', value: `${c.failures}: ${c.lastFailure ?? ''}`, tone: 'bad' });
  return rows;
}

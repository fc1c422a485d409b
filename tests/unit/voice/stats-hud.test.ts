import { describe, expect, it } from 'vitest';
import { summarizePeerStats } from '../../../src/voice/peer-stats.ts';
import { voiceHudRows } from '../../../src/voice/voice-hud.ts';
import { emptyVoiceStats } from '../../../src/voice/voice-stats.ts';

/** A getStats() report as Chrome 150 returns it for one audio link (trimmed to what we read). */
function report(bytesIn: number, bytesOut: number, packetsIn: number, lost: number) {
  return [
    { id: 'T01', type: 'transport', selectedCandidatePairId: 'CP1' },
    { id: 'CP1', type: 'candidate-pair', state: 'succeeded', nominated: true, currentRoundTripTime: 0.012 },
    { id: 'CP2', type: 'candidate-pair', state: 'failed', nominated: false, currentRoundTripTime: 0.9 },
    {
      id: 'COT',
      type: 'codec',
      mimeType: 'audio/opus',
      sdpFmtpLine: 'maxaveragebitrate=128000;minptime=10;usedtx=0;useinbandfec=1',
      payloadType: 111,
    },
    {
      id: 'CIT',
      type: 'codec',
      mimeType: 'audio/opus',
      sdpFmtpLine: 'maxaveragebitrate=128000;minptime=10;usedtx=0;useinbandfec=1',
      payloadType: 111,
    },
    {
      id: 'IT',
      type: 'inbound-rtp',
      kind: 'audio',
      codecId: 'CIT',
      bytesReceived: bytesIn,
      packetsReceived: packetsIn,
      packetsLost: lost,
      fecPacketsReceived: 7,
    },
    { id: 'OT', type: 'outbound-rtp', kind: 'audio', codecId: 'COT', bytesSent: bytesOut, packetsSent: 321, targetBitrate: 128000 },
    { id: 'RI', type: 'remote-inbound-rtp', kind: 'audio', roundTripTime: 0.5 },
    { id: 'V', type: 'inbound-rtp', kind: 'video', bytesReceived: 1e9, packetsReceived: 1e6, packetsLost: 0 },
  ];
}

describe('summarizePeerStats', () => {
  it('turns totals into per-interval rates, loss, RTT of the selected pair, codec and FEC', () => {
    const first = summarizePeerStats(report(10_000, 20_000, 100, 0), null, 1000);
    expect(first.figures.kbpsIn).toBe(0); // no interval yet
    expect(first.figures.codecIn).toBe('audio/opus');
    expect(first.figures.fmtpOut).toContain('maxaveragebitrate=128000');
    expect(first.figures.rttMs).toBeCloseTo(12, 6);
    expect(first.figures.targetBitrate).toBe(128000);
    expect(first.figures.fecPackets).toBe(7);
    expect(first.figures.packetsOut).toBe(321);

    // One second later: 16 kB more in (128 kbit/s), 8 kB more out, 50 packets and 2 lost.
    const second = summarizePeerStats(report(26_000, 28_000, 150, 2), first.sample, 2000);
    expect(second.figures.kbpsIn).toBeCloseTo(128, 6);
    expect(second.figures.kbpsOut).toBeCloseTo(64, 6);
    expect(second.figures.lossPercent).toBeCloseTo((100 * 2) / 52, 6);
  });

  it('falls back to remote-inbound RTT and copes with an empty report', () => {
    const r = report(0, 0, 0, 0).filter((e) => e.type !== 'transport' && e.type !== 'candidate-pair');
    expect(summarizePeerStats(r, null, 0).figures.rttMs).toBe(500);
    const empty = summarizePeerStats([], null, 0).figures;
    expect(empty).toMatchObject({ kbpsIn: 0, kbpsOut: 0, targetBitrate: 0, lossPercent: 0, codecIn: '', fmtpIn: '' });
    expect(Number.isNaN(empty.rttMs)).toBe(true);
  });
});

describe('voice HUD rows', () => {
  it('says "not joined" without stats', () => {
    expect(voiceHudRows(undefined)).toEqual([{ label: 'voice', value: 'not joined' }]);
  });

  it('shows the connection, mic, denoiser, talk mode, delay countdown and each peer', () => {
    const s = emptyVoiceStats('lobby', 'push-to-talk');
    s.state = 'open';
    s.id = 4;
    s.mic = { state: 'live', levelDb: -23.4, message: null };
    s.denoiser = { state: 'on', error: null, vad: 0.87, frames: 100, latencyMs: 30, wet: 0.92 };
    s.delay = { enabled: true, seconds: 5, phase: 'dumped', resumesIn: 3.24 };
    s.spatial = 'ready';
    s.peers = [
      {
        id: 7,
        role: 'offerer',
        connection: 'connected',
        ice: 'connected',
        signaling: 'stable',
        iceRestarts: 0,
        negotiations: 1,
        kbpsIn: 121.4,
        kbpsOut: 119.9,
        targetBitrate: 128000,
        lossPercent: 0.5,
        rttMs: 14.2,
        fecPackets: 3,
        packetsIn: 10,
        packetsOut: 10,
        codecIn: 'audio/opus',
        codecOut: 'audio/opus',
        fmtpIn: '',
        fmtpOut: '',
        levelDb: -30,
        distance: 3.04,
      },
    ];
    const rows = voiceHudRows(s);
    const row = (label: string) => rows.find((r) => r.label === label);
    expect(row('room')).toEqual({ label: 'room', value: 'lobby · connected as 4', tone: 'ok' });
    expect(row('mic')?.value).toBe('-23 dB');
    expect(row('denoiser')).toEqual({ label: 'denoiser', value: 'RNNoise on · voice 87%', tone: 'ok' });
    expect(row('talk')?.value).toBe('push-to-talk · hold V');
    expect(row('delay')).toEqual({ label: 'delay', value: 'DUMPED · resumes in 3.2 s', tone: 'bad' });
    expect(row('spatial')).toEqual({ label: 'spatial', value: 'HRTF', tone: 'ok' });
    expect(row('peer 7')).toEqual({ label: 'peer 7', value: 'connected · 3.0 m', tone: 'ok' });
    expect(row('  in/out')?.value).toBe('121 / 120 kbps');
    expect(row('  loss · rtt')?.value).toBe('0.5% · 14 ms');
    expect(row('  fec · level')?.value).toBe('3 pkts · -30 dB');
  });

  it('shows failures in red: denied microphone, failed denoiser, WebRTC errors', () => {
    const s = emptyVoiceStats('lobby', 'open');
    s.mic = { state: 'denied', levelDb: -120, message: 'denied' };
    s.denoiser = {
      state: 'failed',
      error: 'the RNNoise worklet did not load from /x.js: 404',
      vad: 0,
      frames: 0,
      latencyMs: 30,
      wet: 0.92,
    };
    s.connections = { created: 2, closed: 1, open: 1, failures: 1, lastFailure: 'peer 3: boom' };
    s.audio = 'suspended';
    const rows = voiceHudRows(s);
    expect(rows.find((r) => r.label === 'sound')).toEqual({ label: 'sound', value: 'click or press a key to hear voices', tone: 'warn' });
    expect(rows.find((r) => r.label === 'mic')).toEqual({ label: 'mic', value: 'denied — listen only', tone: 'bad' });
    expect(rows.find((r) => r.label === 'denoiser')).toMatchObject({
      tone: 'bad',
      value: expect.stringMatching(/^FAILED: .*\/x\.js.*high-pass/),
    });
    expect(rows.find((r) => r.label === 'webrtc errors')).toMatchObject({ tone: 'bad', value: '1: peer 3: boom' });
    expect(rows.find((r) => r.label === 'talk')).toMatchObject({ value: 'open mic', tone: 'ok' });
    expect(rows.find((r) => r.label === 'peers')?.value).toBe('nobody else here');
    expect(rows.find((r) => r.label === 'spatial')).toMatchObject({ tone: 'warn', value: expect.stringMatching(/loading HRTF/) });
  });
});

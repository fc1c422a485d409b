/**
 * Voice in real Chromium with real WebRTC against the real VoiceRoom on workerd. Two browsers with
 * their fake microphones fed from WAV files of espeak-ng speech talk to each other through
 * voice.html; a third browser whose microphone permission is denied listens only. The offline
 * graph measurements (denoiser, push-to-talk envelope, broadcast delay) are in voice-graphs.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { collectPageErrors, hudText, launchChromium, MEDIA_ARGS } from '../harness/browser.ts';
import { saveDocPicture } from '../harness/pictures.ts';
import { countPeerConnections, measureOutput, measurePeer, peerConnectionCensus, voiceStats, waitForPeers } from '../harness/voice-page.ts';
import { concat, speak, writeWav } from '../harness/voice-signals.ts';
import { VoiceSocket } from '../harness/voice-socket.ts';

const base = inject('serverUrl');
const room = `voice-e2e-${process.pid}-${Date.now().toString(36)}`;

/** Opus fmtp parameters from a getStats() codec entry. */
function fmtpOf(line: string): Record<string, string> {
  return Object.fromEntries(line.split(';').map((kv) => kv.split('=') as [string, string]));
}

/** getStats() straight from the page's RTCPeerConnection to a peer: codecs and outbound figures. */
async function rawStats(
  page: Page,
  peerId: number,
): Promise<{ codecs: Array<{ mimeType: string; sdpFmtpLine: string }>; targetBitrate: number; maxBitrate: number | undefined }> {
  return page.evaluate(async (id) => {
    const voice = window.cairn.voice!;
    const pc = voice.mesh.connection(id)!;
    const report = await pc.getStats();
    const codecs: Array<{ mimeType: string; sdpFmtpLine: string }> = [];
    let targetBitrate = 0;
    report.forEach((entry) => {
      if (entry.type === 'codec') codecs.push({ mimeType: entry.mimeType, sdpFmtpLine: entry.sdpFmtpLine ?? '' });
      if (entry.type === 'outbound-rtp' && entry.kind === 'audio') targetBitrate = entry.targetBitrate ?? 0;
    });
    const sender = pc.getSenders().find((s) => s.track?.kind === 'audio');
    return { codecs, targetBitrate, maxBitrate: sender?.getParameters().encodings[0]?.maxBitrate };
  }, peerId);
}

describe('voice between browsers (real WebRTC, real VoiceRoom)', () => {
  let dir: string;
  let browserA: Browser;
  let browserB: Browser;
  let browserC: Browser;
  let a: Page;
  let b: Page;
  let errorsA: string[];
  let errorsB: string[];
  let idA: number;
  let idB: number;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'cairn-voice-'));
    // Continuous speech for A (the one everybody measures), another voice for B.
    const speechA = concat(
      [
        speak('One two three four five six seven eight nine ten. The rain in Spain stays mainly in the plain.', { wordsPerMinute: 175 }),
        speak('She sells sea shells by the sea shore, and the shells she sells are sea shells for sure.', { wordsPerMinute: 175 }),
      ],
      0.1,
    );
    writeWav(join(dir, 'a.wav'), speechA);
    writeWav(
      join(dir, 'b.wav'),
      speak('Hello from the other side. This is peer B, speaking clearly into a fake microphone.', { voice: 'en+f3', wordsPerMinute: 160 }),
    );
    // C (the listener whose microphone permission is denied: Chromium's fake permission UI set to
    // deny) starts now too, while the machine is quiet; it loads its page in the listen-only test.
    [browserA, browserB, browserC] = await Promise.all([
      launchChromium({ args: [...MEDIA_ARGS, `--use-file-for-fake-audio-capture=${join(dir, 'a.wav')}`] }),
      launchChromium({ args: [...MEDIA_ARGS, `--use-file-for-fake-audio-capture=${join(dir, 'b.wav')}`] }),
      launchChromium({
        args: [...MEDIA_ARGS.filter((f) => !f.startsWith('--use-fake-ui-for-media-stream')), '--use-fake-ui-for-media-stream=deny'],
      }),
    ]);
    a = await browserA.newPage({ viewport: { width: 400, height: 280 } });
    b = await browserB.newPage({ viewport: { width: 560, height: 400 } });
    errorsA = collectPageErrors(a);
    errorsB = collectPageErrors(b);
    await countPeerConnections(a);
    await countPeerConnections(b);
    // A stands 3 m east of B. B faces north (facing π looks down −Z), so east is B's right.
    // A keeps a short keep-alive (ping every 1 s, dead after 6 silent) so the dead-socket test runs in seconds.
    await a.goto(`${base}/voice.html?room=${room}&mode=open&x=3&z=0&facing=0&keepalive=1,6`);
    // B loads the denoiser from a URL that does not exist: its voice must still go out.
    await b.goto(`${base}/voice.html?room=${room}&mode=open&x=0&z=0&facing=${Math.PI}&denoiserUrl=/no-such-worklet.js`);
  });

  afterAll(async () => {
    await Promise.all([browserA?.close(), browserB?.close(), browserC?.close()]);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('connects two pages with Opus at 128 kbps, FEC on, DTX off, on both sides, and audio arrives', async () => {
    const sa = await waitForPeers(a, 1);
    const sb = await waitForPeers(b, 1);
    idA = sa.id!;
    idB = sb.id!;
    expect(sa.peers[0]!.id).toBe(idB);
    expect(sb.peers[0]!.id).toBe(idA);
    // Exactly one side offered: the lexicographically smaller id.
    expect([sa.peers[0]!.role, sb.peers[0]!.role].sort()).toEqual(['answerer', 'offerer']);
    expect(sa.peers[0]!.role).toBe(String(idA) < String(idB) ? 'offerer' : 'answerer');

    for (const [page, peer] of [
      [a, idB],
      [b, idA],
    ] as const) {
      // Codec entries appear once RTP flows; the encoder target once the first report lands.
      await expect.poll(async () => (await rawStats(page, peer)).targetBitrate, { timeout: 20_000 }).toBeGreaterThan(64_000);
      const raw = await rawStats(page, peer);
      const opus = raw.codecs.filter((c) => c.mimeType.toLowerCase() === 'audio/opus');
      expect(opus.length).toBeGreaterThanOrEqual(1);
      for (const codec of opus)
        expect(fmtpOf(codec.sdpFmtpLine)).toMatchObject({ maxaveragebitrate: '128000', useinbandfec: '1', usedtx: '0' });
      expect(raw.maxBitrate).toBe(128_000);
    }

    // Audio arrives both ways (B's voice goes out through the fallback chain).
    await expect.poll(async () => (await voiceStats(b)).peers[0]!.packetsIn, { timeout: 10_000 }).toBeGreaterThan(100);
    expect(await measurePeer(b, idA, 2)).toBeGreaterThan(-45);
    expect(await measurePeer(a, idB, 2)).toBeGreaterThan(-45);
    const after = await voiceStats(b);
    expect(after.peers[0]!.codecIn).toBe('audio/opus');
    expect(after.peers[0]!.codecOut).toBe('audio/opus');
    expect(after.reconnects).toBe(0);
    expect((await voiceStats(a)).reconnects).toBe(0);

    // Chrome only pulls a remote track while a media element plays it: one hidden, muted <audio> per peer.
    const elements = await b.evaluate(() =>
      [...document.querySelectorAll('audio[data-voice-peer]')].map((e) => ({
        muted: (e as HTMLAudioElement).muted,
        hidden: (e as HTMLAudioElement).hidden,
        paused: (e as HTMLAudioElement).paused,
      })),
    );
    expect(elements).toEqual([{ muted: true, hidden: true, paused: false }]);

    // The HUD shows what the stats say, including B's failed denoiser in red.
    const hudA = await hudText(a);
    expect(hudA).toMatch(/connected as \d+/);
    expect(hudA).toMatch(/RNNoise on/);
    expect(hudA).toContain(`peer ${idB}`);
    const sbNow = await voiceStats(b);
    expect(sbNow.denoiser.state).toBe('failed');
    expect(sbNow.denoiser.error).toMatch(/no-such-worklet\.js/);
    await expect
      .poll(() => b.locator('.cairn-hud [data-tone="bad"]').allInnerTexts())
      .toEqual(expect.arrayContaining([expect.stringMatching(/FAILED: .*no-such-worklet/)]));
    expect((await voiceStats(a)).denoiser.state).toBe('on');
  });

  it('push-to-talk gates with a gain ramp: the track stays enabled and packets keep flowing', async () => {
    const sa0 = await voiceStats(a);
    expect(sa0.reconnects, `A reconnected: ${sa0.lastSignalingError}`).toBe(0);
    await a.evaluate(() => window.cairn.voice!.setMode('push-to-talk'));
    // Released: B hears silence (after the 0.4 s release and the jitter buffer)…
    await expect.poll(() => measurePeer(b, idA, 0.5), { timeout: 10_000 }).toBeLessThan(-70);
    const before = (await voiceStats(b)).peers[0]!.packetsIn;
    // …while the track is still enabled and sending (DTX off: silence is still packets).
    const track = await a.evaluate(() => {
      const voice = window.cairn.voice!;
      const sender = voice.mesh
        .connection(voice.mesh.peerIds()[0]!)!
        .getSenders()
        .find((s) => s.track)!;
      return { enabled: sender.track!.enabled, readyState: sender.track!.readyState };
    });
    expect(track).toEqual({ enabled: true, readyState: 'live' });
    await expect.poll(async () => (await voiceStats(b)).peers[0]!.packetsIn, { timeout: 10_000 }).toBeGreaterThan(before + 25);

    // Hold V: A's voice is back at B.
    await a.keyboard.down('KeyV');
    await expect.poll(async () => (await voiceStats(a)).ptt.pressed).toBe(true);
    await expect.poll(() => measurePeer(b, idA, 1), { timeout: 10_000 }).toBeGreaterThan(-45);
    expect(await hudText(a)).toContain('TALKING');
    await a.keyboard.up('KeyV');
    await expect.poll(() => measurePeer(b, idA, 0.5), { timeout: 10_000 }).toBeLessThan(-70);
    await a.evaluate(() => window.cairn.voice!.setMode('open'));
  });

  it('reconnects after a dead socket and renegotiates without a reload', async () => {
    const oldId = idA;
    await a.evaluate(() => window.cairn.voice!.signaling.simulateDeadSocket());
    // A's keep-alive gives up after 6 s of silence, reconnects, and resumes: the room drops the
    // old socket and B sees a leave for the old id and a fresh link to the new one.
    await a.waitForFunction(
      (old) => {
        const v = window.cairn.stats.voice!;
        return v.reconnects === 1 && v.id !== old && v.state === 'open';
      },
      oldId,
      { timeout: 30_000, polling: 250 },
    );
    const sa = await waitForPeers(a, 1);
    idA = sa.id!;
    const sb = await waitForPeers(b, 1);
    expect(sb.peers.map((p) => p.id)).toEqual([idA]);
    expect(sb.connections.closed).toBeGreaterThanOrEqual(1);
    await expect.poll(() => measurePeer(b, idA, 1), { timeout: 15_000 }).toBeGreaterThan(-45);
    expect(await hudText(a)).toMatch(/reconnects\s+1/);

    // An ICE restart (what a failed link gets from its offerer) renegotiates on the same connection.
    const offerer = String(idA) < String(idB) ? a : b;
    const other = offerer === a ? idB : idA;
    await offerer.evaluate((id) => window.cairn.voice!.mesh.restartIce(id), other);
    await offerer.waitForFunction(
      () => {
        const p = window.cairn.stats.voice!.peers[0];
        return p && p.iceRestarts === 1 && p.negotiations === 2 && p.signaling === 'stable' && p.connection === 'connected';
      },
      undefined,
      { timeout: 20_000, polling: 250 },
    );
    expect((await voiceStats(b)).connections.open).toBe(1);
    await expect.poll(() => measurePeer(b, idA, 1), { timeout: 15_000 }).toBeGreaterThan(-45);
  });

  it('pans a peer to where it stands: right louder on the right, quieter farther away', async () => {
    // A is 3 m to B's right.
    const pannerAt = () => b.evaluate((id) => window.cairn.voice!.mixer.pannerPosition(id), idA);
    await expect.poll(async () => (await voiceStats(b)).peers[0]!.distance, { timeout: 10_000 }).toBeCloseTo(3, 1);
    await expect.poll(async () => (await pannerAt())?.x, { timeout: 10_000 }).toBeCloseTo(3, 1);
    // Chrome loads its HRTF data on a background thread when the page makes its first HRTF
    // panner; until then voices play unpanned (the HUD says so). The mixer's HrtfProbe hears the
    // moment (about a second here). It used to render an OfflineAudioContext, which could deadlock
    // Chromium's loader so the data never came: 'loading' for the whole wait (docs/voice.md).
    await expect.poll(async () => (await voiceStats(b)).spatial, { timeout: 120_000 }).toBe('ready');
    expect(await hudText(b)).toMatch(/spatial\s+HRTF/);
    const near = await measureOutput(b, 2);
    const context = JSON.stringify({ near, panner: await pannerAt(), a: await voiceStats(a), b: await voiceStats(b) });
    expect(near.rightDb, context).toBeGreaterThan(near.leftDb + 2);
    // The picture in docs/voice.md: B's map with A 3 m to the right, and B's HUD (notices dismissed).
    for (const close of await b.locator('.cairn-notice button').all()) await close.click();
    // Taken while A is mid-word, so the HUD shows levels rather than a pause (the picture only).
    await b
      .waitForFunction(() => window.cairn.stats.voice!.output.rightDb > -45, undefined, {
        timeout: 5000,
        polling: 50,
      })
      .catch(() => undefined);
    saveDocPicture('voice.png', await b.screenshot());

    // Same direction, 24 m away: the inverse model says −18 dB (2/(2+22) vs 2/(2+1)).
    await a.evaluate(() => window.cairn.voicePage!.place(24, 0, 0, 0));
    await expect.poll(async () => (await voiceStats(b)).peers[0]!.distance, { timeout: 10_000 }).toBeCloseTo(24, 1);
    await b.waitForTimeout(300); // the panner glides over ~50 ms
    const far = await measureOutput(b, 2);
    const total = (m: { leftDb: number; rightDb: number }) => 10 * Math.log10(10 ** (m.leftDb / 10) + 10 ** (m.rightDb / 10));
    expect(total(far)).toBeLessThan(total(near) - 8);
    expect(far.rightDb).toBeGreaterThan(far.leftDb);

    // Moved to B's left, the left channel wins.
    await a.evaluate(() => window.cairn.voicePage!.place(-3, 0, 0, 0));
    await expect.poll(async () => (await voiceStats(b)).peers[0]!.distance, { timeout: 10_000 }).toBeCloseTo(3, 1);
    await b.waitForTimeout(300);
    const left = await measureOutput(b, 2);
    expect(left.leftDb).toBeGreaterThan(left.rightDb + 2);
    await a.evaluate(() => window.cairn.voicePage!.place(3, 0, 0, 0));
  });

  it('an HrtfProbe in a context no one has oriented still hears HRTF (either ear may lead)', async () => {
    // Repro: a fresh AudioContext's listener faces −Z, so the probe's "right" (Cairn's +Z-forward
    // convention) sits on the listener's left. The probe used to wait for a right-ear lead only
    // and never resolved there (measured L −18.0 dB, R −28.9 dB after 6 s).
    const heard = await a.evaluate(async () => {
      const { HrtfProbe } = window.cairn.voiceModule!;
      const context = new AudioContext({ sampleRate: 48_000 });
      await context.resume();
      const forwardZ = context.listener.forwardZ.value;
      const probe = new HrtfProbe(context, { intervalMs: 50 });
      const outcome = await Promise.race([
        probe.ready.then(() => 'ready'),
        new Promise<string>((resolve) => setTimeout(() => resolve('still waiting after 20 s'), 20_000)),
      ]);
      probe.dispose();
      await context.close();
      return { outcome, forwardZ };
    });
    expect(heard.forwardZ).toBe(-1);
    expect(heard.outcome).toBe('ready');
  });

  it('a listener without microphone permission hears the room and leaves no connections behind', async () => {
    // Chromium's fake permission UI set to deny: getUserMedia fails with NotAllowedError.
    const c = await browserC.newPage({ viewport: { width: 400, height: 280 } });
    await countPeerConnections(c);
    await c.goto(`${base}/voice.html?room=${room}&x=0&z=3&facing=${Math.PI}`);
    const sc = await waitForPeers(c, 2);
    expect(sc.mic.state).toBe('denied');
    expect(sc.mic.message).toMatch(/listening only/);
    await expect
      .poll(() => c.locator('.cairn-notice').allInnerTexts())
      .toEqual(expect.arrayContaining([expect.stringMatching(/listening only[\s\S]*denied/)]));
    expect(await hudText(c)).toMatch(/denied — listen only/);
    // C hears A (C sends nothing, but receives), and nobody reconnected meanwhile.
    const sa = await voiceStats(a);
    const context = () => JSON.stringify({ a: sa, c: sc });
    expect(sa.id, context()).toBe(idA);
    expect(sa.reconnects, context()).toBe(1);
    expect(sc.peers.map((p) => p.id).sort(), context()).toEqual([idA, idB].sort());
    await expect.poll(() => measurePeer(c, idA, 1), { timeout: 15_000 }).toBeGreaterThan(-45);

    // Leave and join again, twice; every connection made is closed again, on every side, also when
    // a join is cut short mid-negotiation.
    for (let round = 0; round < 2; round++) {
      await c.evaluate(() => window.cairn.voicePage!.panel.leave());
      await waitForPeers(a, 1);
      await waitForPeers(b, 1);
      await c.evaluate(() => window.cairn.voicePage!.panel.joinNow());
      await waitForPeers(c, 2);
    }
    // And once more, leaving in the middle of the negotiation (no waiting for the links).
    await c.evaluate(() => window.cairn.voicePage!.panel.leave());
    const madeBefore = [(await waitForPeers(a, 1)).connections.created, (await waitForPeers(b, 1)).connections.created];
    await c.evaluate(async () => {
      const panel = window.cairn.voicePage!.panel;
      await panel.joinNow();
      // Welcomed, the others told, offers about to fly: leave now.
      while (window.cairn.stats.voice!.state !== 'open') await new Promise((r) => setTimeout(r, 5));
      panel.leave();
    });
    for (const [i, page] of [a, b].entries()) {
      // A and B each saw C join (a link made) and leave (that link closed), in that order.
      await page.waitForFunction(
        (made) => {
          const v = window.cairn.stats.voice!;
          return v.connections.created === made + 1 && v.connections.closed === made;
        },
        madeBefore[i]!,
        { timeout: 30_000, polling: 100 },
      );
      const s = await waitForPeers(page, 1);
      expect(s.connections.open).toBe(1);
      expect(s.connections.created - s.connections.closed).toBe(1);
      expect(s.connections.failures).toBe(0);
      const census = await peerConnectionCensus(page);
      expect(census.notClosed).toBe(1);
      expect(census.made).toBe(s.connections.created);
    }
    const censusC = await peerConnectionCensus(c);
    // 3 full joins × 2 peers, plus whatever the interrupted join had started — all closed.
    expect(censusC.made).toBeGreaterThanOrEqual(6);
    expect(censusC.made).toBeLessThanOrEqual(8);
    expect(censusC.notClosed).toBe(0);
    expect(await c.evaluate(() => document.querySelectorAll('audio[data-voice-peer]').length)).toBe(0);
  });

  it('tells the user when the room is full, keeps retrying, and gets in when a place frees up', async () => {
    // Fill a room with 16 plain sockets (declaring a 60 s keep-alive, so the reaper leaves them be).
    const full = `${room}-full`;
    const holders = await Promise.all(Array.from({ length: 16 }, () => VoiceSocket.join(base, full, '?ping=60')));
    const c = await browserC.newPage({ viewport: { width: 400, height: 280 } });
    try {
      await c.goto(`${base}/voice.html?room=${full}`);
      await expect
        .poll(() => c.locator('.cairn-notice').allInnerTexts(), { timeout: 30_000 })
        .toEqual(expect.arrayContaining([expect.stringMatching(/Voice room is full[\s\S]*4008 voice room is full \(16 peers\)/)]));
      const refused = await voiceStats(c);
      // Never welcomed here: 'connecting' while a try is under way, 'reconnecting' while it waits.
      expect(['connecting', 'reconnecting']).toContain(refused.state);
      // Stats are sampled 4× a second, so the error lands there a beat after the notice.
      await expect.poll(async () => String((await voiceStats(c)).lastSignalingError), { timeout: 5000 }).toMatch(/4008 voice room is full/);
      expect(await hudText(c)).toMatch(/connecting/);
      // Refused again on the next retry, and told only once.
      await c.evaluate(() => {
        const w = window as unknown as { refusals: number };
        w.refusals = 0;
        window.cairn.voice!.signaling.events.on('lost', ({ code }) => {
          if (code === 4008) w.refusals++;
        });
      });
      await c.waitForFunction(() => (window as unknown as { refusals: number }).refusals >= 1, undefined, {
        timeout: 30_000,
        polling: 100,
      });
      expect((await c.locator('.cairn-notice').allInnerTexts()).filter((t) => /room is full/.test(t))).toHaveLength(1);
      // One leaves: the next retry gets in, with the 15 who stayed in the roster.
      await holders.pop()!.close();
      await c.waitForFunction(() => window.cairn.stats.voice!.state === 'open', undefined, {
        timeout: 30_000,
        polling: 100,
      });
      await expect.poll(async () => (await voiceStats(c)).connections.created).toBe(15);
    } finally {
      await c.close();
      await Promise.all(holders.map((h) => h.close()));
    }
  });

  it('left no page errors', () => {
    expect(errorsA).toEqual([]);
    expect(errorsB.filter((e) => !/no-such-worklet/.test(e))).toEqual([]);
  });
});

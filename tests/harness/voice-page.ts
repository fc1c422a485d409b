import type { Page } from 'playwright-core';

/** What tests read of `window.cairn.stats.voice` (see src/voice/voice-stats.ts). */
export interface VoiceStatsView {
  state: string;
  id: number | null;
  audio: string;
  reconnects: number;
  lastSignalingError: string | null;
  mic: { state: string; levelDb: number; message: string | null };
  denoiser: { state: string; error: string | null; vad: number; frames: number };
  ptt: { mode: string; pressed: boolean; talking: boolean; gain: number };
  delay: { enabled: boolean; phase: string; resumesIn: number };
  spatial: string;
  output: { leftDb: number; rightDb: number };
  peers: Array<{
    id: number;
    role: string;
    connection: string;
    kbpsIn: number;
    kbpsOut: number;
    targetBitrate: number;
    packetsIn: number;
    packetsOut: number;
    fmtpIn: string;
    fmtpOut: string;
    codecIn: string;
    codecOut: string;
    levelDb: number;
    distance: number | null;
  }>;
  connections: { created: number; closed: number; open: number; failures: number; lastFailure: string | null };
}

export async function voiceStats(page: Page): Promise<VoiceStatsView> {
  return page.evaluate(() => JSON.parse(JSON.stringify(window.cairn.stats.voice)));
}

/** Counts every real RTCPeerConnection a page makes (install before navigation). */
export async function countPeerConnections(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const Native = window.RTCPeerConnection;
    const all: RTCPeerConnection[] = [];
    (window as unknown as { __voicePcs: RTCPeerConnection[] }).__voicePcs = all;
    window.RTCPeerConnection = class extends Native {
      constructor(configuration?: RTCConfiguration) {
        super(configuration);
        all.push(this);
      }
    } as typeof RTCPeerConnection;
  });
}

/** Real RTCPeerConnections in a page: how many were made and how many are not closed. */
export async function peerConnectionCensus(page: Page): Promise<{ made: number; notClosed: number }> {
  return page.evaluate(() => {
    const all = (window as unknown as { __voicePcs: RTCPeerConnection[] }).__voicePcs ?? [];
    return { made: all.length, notClosed: all.filter((pc) => pc.signalingState !== 'closed').length };
  });
}

/** Waits until the page's voice chat has `count` peers, all connected. */
export async function waitForPeers(page: Page, count: number, timeoutMs = 60_000): Promise<VoiceStatsView> {
  await page.waitForFunction(
    (n) => {
      const v = window.cairn?.stats?.voice;
      return v?.state === 'open' && v.peers.length === n && v.peers.every((p) => p.connection === 'connected');
    },
    count,
    { timeout: timeoutMs, polling: 250 },
  );
  return voiceStats(page);
}

/**
 * Mean power of the page's voice output, left and right, over `seconds`, read from the mixer's
 * own analysers (the ones behind `stats.voice.output`) every 40 ms. dB relative to full scale.
 */
export async function measureOutput(page: Page, seconds: number): Promise<{ leftDb: number; rightDb: number }> {
  return page.evaluate(async (s) => {
    const mixer = window.cairn.voice!.mixer;
    let left = 0;
    let right = 0;
    let n = 0;
    const end = performance.now() + s * 1000;
    while (performance.now() < end) {
      const levels = mixer.outputLevels();
      left += 10 ** (levels.left / 10);
      right += 10 ** (levels.right / 10);
      n++;
      await new Promise((r) => setTimeout(r, 40));
    }
    return { leftDb: 10 * Math.log10(left / n), rightDb: 10 * Math.log10(right / n) };
  }, seconds);
}

/** Mean power of one peer's incoming audio (before panning) over `seconds`, dBFS. */
export async function measurePeer(page: Page, id: number, seconds: number): Promise<number> {
  return page.evaluate(
    async ({ id, s }) => {
      const mixer = window.cairn.voice!.mixer;
      let power = 0;
      let n = 0;
      const end = performance.now() + s * 1000;
      while (performance.now() < end) {
        power += 10 ** (mixer.peerLevelDb(id) / 10);
        n++;
        await new Promise((r) => setTimeout(r, 40));
      }
      return 10 * Math.log10(power / n);
    },
    { id, s: seconds },
  );
}

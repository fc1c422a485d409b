/**
 * Turns a peer connection's getStats() report into the figures the HUD shows and tests assert.
 * Pure: takes the report's entries as plain objects, so Node tests feed it recorded reports.
 */

/** Figures for one remote peer, refreshed about once a second. */
export interface PeerFigures {
  /** kbit/s received over the last interval (RTP payload + headers as counted by the browser). */
  kbpsIn: number;
  /** kbit/s sent over the last interval. */
  kbpsOut: number;
  /** Encoder target the browser reports for our outbound Opus stream, bit/s (0 when not sending). */
  targetBitrate: number;
  /** Packet loss on the incoming stream over the last interval, percent. */
  lossPercent: number;
  /** Round-trip time of the selected candidate pair, ms (NaN until measured). */
  rttMs: number;
  /** Packets recovered from Opus in-band FEC since the start. */
  fecPackets: number;
  /** Packets received since the start. */
  packetsIn: number;
  /** Packets sent since the start. */
  packetsOut: number;
  /** e.g. "audio/opus". */
  codecIn: string;
  /** Codec of the outgoing stream, e.g. "audio/opus". */
  codecOut: string;
  /** The fmtp parameters of the negotiated codec, as getStats reports them. */
  fmtpIn: string;
  /** fmtp parameters of the outgoing codec. */
  fmtpOut: string;
}

/** Counters kept between two samples to turn totals into rates. */
export interface StatsSample {
  /** ms timestamp of the sample. */
  at: number;
  /** Bytes received so far. */
  bytesIn: number;
  /** Bytes sent so far. */
  bytesOut: number;
  /** Packets received so far. */
  packetsIn: number;
  /** Packets lost so far on the incoming stream. */
  lostIn: number;
}

type Entry = Record<string, unknown>;

function num(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : 0;
}

/**
 * Summarises one report. `previous` is the last call's sample (null the first time); returns the
 * figures and the sample to pass next time.
 */
export function summarizePeerStats(
  entries: Iterable<Entry>,
  previous: StatsSample | null,
  now: number,
): {
  /** The figures for the HUD. */
  figures: PeerFigures;
  /** The totals, for the next call's rates. */
  sample: StatsSample;
} {
  const byId = new Map<string, Entry>();
  const list: Entry[] = [];
  for (const entry of entries) {
    list.push(entry);
    if (typeof entry.id === 'string') byId.set(entry.id, entry);
  }
  const audio = (type: string) => list.filter((e) => e.type === type && (e.kind === 'audio' || e.mediaType === 'audio'));
  const inbound = audio('inbound-rtp');
  const outbound = audio('outbound-rtp');
  const sum = (entries: Entry[], key: string) => entries.reduce((total, e) => total + num(e[key]), 0);

  const bytesIn = sum(inbound, 'bytesReceived');
  const bytesOut = sum(outbound, 'bytesSent');
  const packetsIn = sum(inbound, 'packetsReceived');
  const lostIn = sum(inbound, 'packetsLost');
  const seconds = previous ? (now - previous.at) / 1000 : 0;
  const rate = (bytes: number, before: number) => (seconds > 0 ? Math.max(0, ((bytes - before) * 8) / seconds / 1000) : 0);
  const deltaPackets = previous ? packetsIn - previous.packetsIn : packetsIn;
  const deltaLost = previous ? lostIn - previous.lostIn : lostIn;
  const lossPercent = deltaPackets + deltaLost > 0 ? (100 * Math.max(0, deltaLost)) / (deltaPackets + Math.max(0, deltaLost)) : 0;

  // RTT: the transport's selected pair, else any nominated succeeded pair, else remote-inbound-rtp.
  let rttSeconds = Number.NaN;
  const transport = list.find((e) => e.type === 'transport' && typeof e.selectedCandidatePairId === 'string');
  const pair =
    (transport ? byId.get(transport.selectedCandidatePairId as string) : undefined) ??
    list.find((e) => e.type === 'candidate-pair' && e.nominated === true && e.state === 'succeeded');
  if (pair && typeof pair.currentRoundTripTime === 'number') rttSeconds = pair.currentRoundTripTime;
  else {
    const remote = list.find((e) => e.type === 'remote-inbound-rtp' && typeof e.roundTripTime === 'number');
    if (remote) rttSeconds = remote.roundTripTime as number;
  }

  const codecOf = (entry: Entry | undefined) => (entry && typeof entry.codecId === 'string' ? byId.get(entry.codecId) : undefined);
  const codecIn = codecOf(inbound[0]);
  const codecOut = codecOf(outbound[0]);

  return {
    figures: {
      kbpsIn: rate(bytesIn, previous?.bytesIn ?? bytesIn),
      kbpsOut: rate(bytesOut, previous?.bytesOut ?? bytesOut),
      targetBitrate: outbound.length ? num(outbound[0]!.targetBitrate) : 0,
      lossPercent,
      rttMs: rttSeconds * 1000,
      fecPackets: sum(inbound, 'fecPacketsReceived'),
      packetsIn,
      packetsOut: sum(outbound, 'packetsSent'),
      codecIn: typeof codecIn?.mimeType === 'string' ? codecIn.mimeType : '',
      codecOut: typeof codecOut?.mimeType === 'string' ? codecOut.mimeType : '',
      fmtpIn: typeof codecIn?.sdpFmtpLine === 'string' ? codecIn.sdpFmtpLine : '',
      fmtpOut: typeof codecOut?.sdpFmtpLine === 'string' ? codecOut.sdpFmtpLine : '',
    },
    sample: { at: now, bytesIn, bytesOut, packetsIn, lostIn },
  };
}

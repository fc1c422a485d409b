/**
 * Session-description edits for Opus. Pure string work, no DOM: unit-tested in Node.
 *
 * Browsers offer Opus at about 32 kbps mono with DTX left to the browser. A sender obeys the
 * `a=fmtp` parameters of the *remote* description, so Cairn rewrites the Opus fmtp line of every
 * offer and answer it sets, local and remote, to ask for a proper voice-call stream.
 */

/** Opus fmtp parameters Cairn asks for (RFC 7587 names). */
export interface OpusParameters {
  /** Average bitrate the receiver wants, bits/s. Default 128000. */
  maxaveragebitrate: number;
  /** In-band forward error correction: 1 on. Default 1. */
  useinbandfec: 0 | 1;
  /** Discontinuous transmission: 0 off, so quiet passages keep full quality. Default 0. */
  usedtx: 0 | 1;
}

/** Cairn's Opus: 128 kbit/s, in-band FEC on, DTX off. */
export const CAIRN_OPUS: OpusParameters = { maxaveragebitrate: 128_000, useinbandfec: 1, usedtx: 0 };

/** `maxaveragebitrate=128000;useinbandfec=1;usedtx=0`: how the parameters read in an fmtp line. */
export function formatOpusParameters(params: OpusParameters = CAIRN_OPUS): string {
  return `maxaveragebitrate=${params.maxaveragebitrate};useinbandfec=${params.useinbandfec};usedtx=${params.usedtx}`;
}

const RTPMAP_OPUS = /^a=rtpmap:(\d+) opus\/48000(?:\/\d+)?$/i;

/**
 * Rewrites the `a=fmtp` line of every Opus payload type in every media section so it carries
 * `params`, and leaves every other line byte for byte as it was (line endings included).
 *
 * - Payload numbers are read from each section's `a=rtpmap:<pt> opus/48000/2` lines, so any
 *   number works (111 in Chrome, 109 in Firefox, anything in a hand-written SDP).
 * - An existing fmtp line keeps its other parameters in their order (`minptime=10`, `stereo=…`);
 *   ours are replaced in place or appended.
 * - A payload with no fmtp line gets one right after its rtpmap line.
 * - Other codecs (red, G722, PCMU, telephone-event) and video sections are untouched.
 * Idempotent: rewriting a rewritten SDP changes nothing.
 */
export function rewriteOpusFmtp(sdp: string, params: OpusParameters = CAIRN_OPUS): string {
  const eol = sdp.includes('\r\n') ? '\r\n' : '\n';
  const trailing = sdp.endsWith(eol);
  const lines = (trailing ? sdp.slice(0, -eol.length) : sdp).split(eol);
  const wanted: Array<[string, string]> = [
    ['maxaveragebitrate', String(params.maxaveragebitrate)],
    ['useinbandfec', String(params.useinbandfec)],
    ['usedtx', String(params.usedtx)],
  ];

  // Media sections: [start, end) line ranges; the session part before the first m= is left alone.
  const starts: number[] = [];
  lines.forEach((line, i) => {
    if (line.startsWith('m=')) starts.push(i);
  });
  const out: string[] = lines.slice(0, starts[0] ?? lines.length);
  starts.forEach((start, k) => {
    const section = lines.slice(start, starts[k + 1] ?? lines.length);
    out.push(...rewriteSection(section, wanted));
  });
  return out.join(eol) + (trailing ? eol : '');
}

function rewriteSection(section: string[], wanted: Array<[string, string]>): string[] {
  const opusTypes = new Set<string>();
  for (const line of section) {
    const match = RTPMAP_OPUS.exec(line);
    if (match) opusTypes.add(match[1]!);
  }
  if (opusTypes.size === 0) return section;

  const withFmtp = new Set<string>();
  const result = section.map((line) => {
    const match = /^a=fmtp:(\d+) ?(.*)$/.exec(line);
    if (!match || !opusTypes.has(match[1]!)) return line;
    withFmtp.add(match[1]!);
    return `a=fmtp:${match[1]} ${mergeParameters(match[2]!, wanted)}`;
  });
  // Payloads without an fmtp line get one after their rtpmap line.
  for (const pt of opusTypes) {
    if (withFmtp.has(pt)) continue;
    const at = result.findIndex((line) => RTPMAP_OPUS.exec(line)?.[1] === pt);
    result.splice(at + 1, 0, `a=fmtp:${pt} ${mergeParameters('', wanted)}`);
  }
  return result;
}

/** Merges `wanted` into a `k=v;k=v` list: existing keys keep their place, new ones are appended. */
function mergeParameters(existing: string, wanted: Array<[string, string]>): string {
  const pairs = existing
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part.length > 0)
    .map((part) => {
      const eq = part.indexOf('=');
      return eq < 0 ? [part, null] : [part.slice(0, eq).trim(), part.slice(eq + 1).trim()];
    }) as Array<[string, string | null]>;
  for (const [key, value] of wanted) {
    const found = pairs.find(([k]) => k.toLowerCase() === key);
    if (found) found[1] = value;
    else pairs.push([key, value]);
  }
  return pairs.map(([k, v]) => (v === null ? k : `${k}=${v}`)).join(';');
}

/**
 * Reads the Opus fmtp parameters out of an SDP (first Opus payload of the first audio section), or
 * null when there is none. Used by stats and tests to confirm what was negotiated.
 */
export function readOpusFmtp(sdp: string): Record<string, string> | null {
  const lines = sdp.split(/\r?\n/);
  let pt: string | null = null;
  for (const line of lines) {
    const match = RTPMAP_OPUS.exec(line);
    if (match) {
      pt = match[1]!;
      break;
    }
  }
  if (pt === null) return null;
  const fmtp = lines.find((line) => line.startsWith(`a=fmtp:${pt} `));
  if (!fmtp) return {};
  return parseFmtp(fmtp.slice(`a=fmtp:${pt} `.length));
}

/** `a=b;c=d` → { a: 'b', c: 'd' } (the format of an fmtp line and of getStats' sdpFmtpLine). */
export function parseFmtp(text: string): Record<string, string> {
  const result: Record<string, string> = {};
  for (const part of text.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0) result[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return result;
}

/** True when an fmtp parameter list carries all of Cairn's Opus parameters. */
export function hasCairnOpus(fmtp: string | Record<string, string>, params: OpusParameters = CAIRN_OPUS): boolean {
  const parsed = typeof fmtp === 'string' ? parseFmtp(fmtp) : fmtp;
  return (
    parsed.maxaveragebitrate === String(params.maxaveragebitrate) &&
    parsed.useinbandfec === String(params.useinbandfec) &&
    parsed.usedtx === String(params.usedtx)
  );
}

/**
 * The session id from a description's `o=` line (RFC 8866: `o=<user> <sess-id> <sess-version> …`),
 * or null. It stays the same across renegotiations and ICE restarts of one RTCPeerConnection and
 * differs for a new one, so it tells a stale offer (for a connection already closed) from a new
 * connection's first offer.
 */
export function sdpSessionId(sdp: string): string | null {
  const match = /^o=\S+ (\d+) \d+ /m.exec(sdp);
  return match ? match[1]! : null;
}

import { describe, expect, it } from 'vitest';
import { formatOpusParameters, hasCairnOpus, parseFmtp, readOpusFmtp, rewriteOpusFmtp } from '../../../src/voice/sdp.ts';

/** An audio offer as Chrome 150 writes it (trimmed of candidates), CRLF line endings. */
const CHROME_OFFER = [
  'v=0',
  'o=- 4611731400430051336 2 IN IP4 127.0.0.1',
  's=-',
  't=0 0',
  'a=group:BUNDLE 0',
  'a=msid-semantic: WMS stream',
  'm=audio 9 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126',
  'c=IN IP4 0.0.0.0',
  'a=rtcp:9 IN IP4 0.0.0.0',
  'a=ice-ufrag:abcd',
  'a=mid:0',
  'a=sendrecv',
  'a=rtcp-mux',
  'a=rtpmap:111 opus/48000/2',
  'a=rtcp-fb:111 transport-cc',
  'a=fmtp:111 minptime=10;useinbandfec=1',
  'a=rtpmap:63 red/48000/2',
  'a=fmtp:63 111/111',
  'a=rtpmap:9 G722/8000',
  'a=rtpmap:0 PCMU/8000',
  'a=rtpmap:8 PCMA/8000',
  'a=rtpmap:13 CN/8000',
  'a=rtpmap:110 telephone-event/48000',
  'a=rtpmap:126 telephone-event/8000',
  'a=ssrc:1234 cname:xyz',
  '',
].join('\r\n');

function lines(sdp: string): string[] {
  return sdp.split(/\r\n|\n/);
}

describe('rewriteOpusFmtp', () => {
  it("rewrites Chrome's Opus fmtp line, keeping minptime, and touches no other line", () => {
    const out = rewriteOpusFmtp(CHROME_OFFER);
    expect(out).toContain('a=fmtp:111 minptime=10;useinbandfec=1;maxaveragebitrate=128000;usedtx=0\r\n');
    const before = lines(CHROME_OFFER);
    const after = lines(out);
    expect(after.length).toBe(before.length);
    const changed = after.filter((line, i) => line !== before[i]);
    expect(changed).toEqual(['a=fmtp:111 minptime=10;useinbandfec=1;maxaveragebitrate=128000;usedtx=0']);
    // The RED line that mentions 111 is not an Opus fmtp line and stays as it was.
    expect(out).toContain('a=fmtp:63 111/111\r\n');
    expect(out.endsWith('\r\n')).toBe(true);
    expect(out.includes('\n') && !/[^\r]\n/.test(out)).toBe(true);
  });

  it('copes with another payload number, no fmtp line, and LF endings', () => {
    const firefox = [
      'v=0',
      'o=mozilla 1 0 IN IP4 0.0.0.0',
      's=-',
      't=0 0',
      'm=audio 9 UDP/TLS/RTP/SAVPF 109 9 0',
      'a=rtpmap:109 opus/48000/2',
      'a=rtpmap:9 G722/8000/1',
      'a=rtpmap:0 PCMU/8000',
    ].join('\n');
    const out = rewriteOpusFmtp(firefox);
    expect(lines(out)).toEqual([
      'v=0',
      'o=mozilla 1 0 IN IP4 0.0.0.0',
      's=-',
      't=0 0',
      'm=audio 9 UDP/TLS/RTP/SAVPF 109 9 0',
      'a=rtpmap:109 opus/48000/2',
      'a=fmtp:109 maxaveragebitrate=128000;useinbandfec=1;usedtx=0',
      'a=rtpmap:9 G722/8000/1',
      'a=rtpmap:0 PCMU/8000',
    ]);
    expect(out.includes('\r')).toBe(false);
  });

  it('overrides conflicting values in place and keeps unrelated parameters and their order', () => {
    const sdp =
      'v=0\r\nm=audio 9 RTP/SAVPF 96\r\na=rtpmap:96 OPUS/48000/2\r\na=fmtp:96 stereo=1; usedtx=1;sprop-stereo=1;maxaveragebitrate=20000\r\n';
    expect(rewriteOpusFmtp(sdp)).toBe(
      'v=0\r\nm=audio 9 RTP/SAVPF 96\r\na=rtpmap:96 OPUS/48000/2\r\na=fmtp:96 stereo=1;usedtx=0;sprop-stereo=1;maxaveragebitrate=128000;useinbandfec=1\r\n',
    );
  });

  it('handles several Opus payloads and several sections; payload numbers are per section', () => {
    const sdp = [
      'v=0',
      'm=audio 9 RTP/SAVPF 111 112',
      'a=rtpmap:111 opus/48000/2',
      'a=rtpmap:112 opus/48000/2',
      'a=fmtp:112 minptime=20',
      'm=video 9 RTP/SAVPF 111 96',
      'a=rtpmap:111 H264/90000',
      'a=fmtp:111 profile-level-id=42e01f',
      'a=rtpmap:96 VP8/90000',
      'm=audio 9 RTP/SAVPF 100',
      'a=rtpmap:100 opus/48000/2',
      'a=fmtp:100 useinbandfec=0',
      '',
    ].join('\r\n');
    const out = lines(rewriteOpusFmtp(sdp));
    expect(out).toEqual([
      'v=0',
      'm=audio 9 RTP/SAVPF 111 112',
      'a=rtpmap:111 opus/48000/2',
      'a=fmtp:111 maxaveragebitrate=128000;useinbandfec=1;usedtx=0',
      'a=rtpmap:112 opus/48000/2',
      'a=fmtp:112 minptime=20;maxaveragebitrate=128000;useinbandfec=1;usedtx=0',
      'm=video 9 RTP/SAVPF 111 96',
      'a=rtpmap:111 H264/90000',
      'a=fmtp:111 profile-level-id=42e01f',
      'a=rtpmap:96 VP8/90000',
      'm=audio 9 RTP/SAVPF 100',
      'a=rtpmap:100 opus/48000/2',
      'a=fmtp:100 useinbandfec=1;maxaveragebitrate=128000;usedtx=0',
      '',
    ]);
  });

  it('leaves an SDP without Opus unchanged and is idempotent', () => {
    const noOpus = 'v=0\r\nm=audio 9 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n';
    expect(rewriteOpusFmtp(noOpus)).toBe(noOpus);
    const once = rewriteOpusFmtp(CHROME_OFFER);
    expect(rewriteOpusFmtp(once)).toBe(once);
  });

  it('takes other parameter values', () => {
    const out = rewriteOpusFmtp(CHROME_OFFER, { maxaveragebitrate: 64000, useinbandfec: 0, usedtx: 1 });
    expect(readOpusFmtp(out)).toEqual({ minptime: '10', useinbandfec: '0', maxaveragebitrate: '64000', usedtx: '1' });
  });
});

describe('reading fmtp parameters', () => {
  it('reads the negotiated Opus parameters and checks them', () => {
    expect(readOpusFmtp(CHROME_OFFER)).toEqual({ minptime: '10', useinbandfec: '1' });
    expect(hasCairnOpus(readOpusFmtp(CHROME_OFFER)!)).toBe(false);
    expect(hasCairnOpus(readOpusFmtp(rewriteOpusFmtp(CHROME_OFFER))!)).toBe(true);
    expect(readOpusFmtp('v=0\r\nm=audio 9 RTP/AVP 0\r\n')).toBeNull();
    expect(parseFmtp('minptime=10;useinbandfec=1')).toEqual({ minptime: '10', useinbandfec: '1' });
    expect(formatOpusParameters()).toBe('maxaveragebitrate=128000;useinbandfec=1;usedtx=0');
    expect(hasCairnOpus('minptime=10;maxaveragebitrate=128000;useinbandfec=1;usedtx=0')).toBe(true);
  });
});

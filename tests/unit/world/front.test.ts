import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { forwardedHeaders, peerAddress } from '../../../scripts/front.ts';

describe('the local server’s front', () => {
  it('replaces every client-sent CF-Connecting-IP with the connection’s address, keeping the other headers in order', () => {
    const raw = ['Host', 'x', 'cf-connecting-ip', '1.2.3.4', 'Upgrade', 'websocket', 'CF-Connecting-IP', '5.6.7.8'];
    expect(forwardedHeaders(raw, '192.0.2.9')).toEqual(['Host', 'x', 'Upgrade', 'websocket', 'CF-Connecting-IP', '192.0.2.9']);
    expect(forwardedHeaders([], '127.0.0.1')).toEqual(['CF-Connecting-IP', '127.0.0.1']);
  });

  it('writes IPv4 peers of a dual-stack socket as IPv4', () => {
    expect(peerAddress({ remoteAddress: '::ffff:192.0.2.9' } as Socket)).toBe('192.0.2.9');
    expect(peerAddress({ remoteAddress: '::1' } as Socket)).toBe('::1');
    expect(peerAddress({ remoteAddress: '2001:db8::5' } as Socket)).toBe('2001:db8::5');
  });
});

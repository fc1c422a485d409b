import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { forwardedHeaders, peerAddress, startFront } from '../../../scripts/front.ts';

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

/** A stand-in for wrangler's proxy on a loopback port: answers with `respond`, records what it saw. */
async function upstream(respond: (request: IncomingMessage, response: ServerResponse, seen: number) => void): Promise<{
  port: number;
  seen: Array<{ method: string; url: string; address: string | undefined }>;
  server: Server;
}> {
  const seen: Array<{ method: string; url: string; address: string | undefined }> = [];
  const server = createServer((request, response) => {
    seen.push({ method: request.method!, url: request.url!, address: request.headers['cf-connecting-ip'] as string | undefined });
    request.resume();
    request.on('end', () => respond(request, response, seen.length));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { port: (server.address() as AddressInfo).port, seen, server };
}

/** wrangler's answer to a request its Worker reloaded under. */
const restartedMidRequest = (response: ServerResponse): void => {
  response.writeHead(503, { 'retry-after': '0', 'content-type': 'text/plain' });
  response.end('Your worker restarted mid-request. Please try sending the request again.');
};

describe('the front during reloads and restarts', () => {
  const closers: Array<() => void> = [];
  afterEach(() => {
    for (const close of closers.splice(0)) close();
  });
  const front = async (port: () => Promise<number>): Promise<string> => {
    const server = await startFront({ ip: '127.0.0.1', port: 0, upstream: port });
    closers.push(() => server.close());
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  };

  it('sends an enter or a session again when wrangler says the Worker restarted under it; a hop it passes on', async () => {
    const up = await upstream((request, response, n) => {
      if (request.url === '/api/world/hop' || n === 1) return restartedMidRequest(response);
      response.end('ok');
    });
    closers.push(() => up.server.close());
    const base = await front(async () => up.port);
    const enter = await fetch(`${base}/api/world/enter`, {
      method: 'POST',
      body: '{"x":1,"z":2}',
      headers: { 'CF-Connecting-IP': '6.6.6.6' },
    });
    expect([enter.status, await enter.text()]).toEqual([200, 'ok']);
    expect(up.seen.map((s) => s.url)).toEqual(['/api/world/enter', '/api/world/enter']);
    // Both tries carried the connection's address, not the one the client named.
    expect(up.seen.map((s) => s.address)).toEqual(['127.0.0.1', '127.0.0.1']);
    const hop = await fetch(`${base}/api/world/hop`, { method: 'POST', body: '{}' });
    expect(hop.status).toBe(503);
    await hop.text();
    expect(up.seen.filter((s) => s.url === '/api/world/hop')).toHaveLength(1);
  });

  it('holds requests while the Worker restarts and sends them to the new one', async () => {
    let resolvePort: (port: number) => void = () => undefined;
    const later = new Promise<number>((resolve) => (resolvePort = resolve));
    const base = await front(() => later);
    const pending = fetch(`${base}/api/health`);
    const up = await upstream((_request, response) => response.end('{"ok":true}'));
    closers.push(() => up.server.close());
    resolvePort(up.port);
    const answer = await pending;
    expect([answer.status, await answer.text()]).toEqual([200, '{"ok":true}']);
  });
});

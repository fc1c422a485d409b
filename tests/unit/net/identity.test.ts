import { describe, expect, it } from 'vitest';
import { verifyAvatarToken, signAvatarToken, AVATAR_TOKEN_TTL_MS } from '../../../server/identity/avatar-token.ts';
import { ANONYMOUS_SHARE, ClientLedger, identifyClient, IP_SHARE, isLocalIp } from '../../../server/identity/client.ts';
import { deriveKey } from '../../../server/identity/keys.ts';
import { signSession, verifySession, SESSION_TTL_MS } from '../../../server/identity/session-token.ts';

const master = new Uint8Array(32).map((_, i) => i * 7);

describe('avatar tokens (proof of an avatar id for voice)', () => {
  it('prove one id in one scope until they expire, and name the socket and cell they were issued to', async () => {
    const key = await deriveKey(master, 'avatar');
    const now = 1_800_000_000_000;
    const token = await signAvatarToken(key, { id: 42, scope: 'lobby', socket: 0xdeadbeef, cell: null }, now);
    expect(token).toMatch(/^[A-Za-z0-9_-]{46}$/);
    const problem = async (t: string, id: number, scope: string, at: number, k = key): Promise<string | null> => {
      const verified = await verifyAvatarToken(k, t, id, scope, at);
      return verified.ok ? null : verified.problem;
    };
    expect(await verifyAvatarToken(key, token, 42, 'lobby', now + 1000)).toEqual({
      ok: true,
      claims: { id: 42, issuedAt: now, socket: 0xdeadbeef, cell: null },
    });
    expect(await problem(token, 43, 'lobby', now)).toMatch(/signature|another avatar/);
    expect(await problem(token, 42, 'lobby2', now)).toMatch(/signature/);
    expect(await problem(token, 42, 'lobby', now + AVATAR_TOKEN_TTL_MS + 1000)).toMatch(/expired/);
    // Another kind's key (a session key) never verifies an avatar token.
    expect(await problem(token, 42, 'lobby', now, await deriveKey(master, 'session'))).toMatch(/signature/);
    const flipped = token.slice(0, 10) + (token[10] === 'A' ? 'B' : 'A') + token.slice(11);
    expect(await problem(flipped, 42, 'lobby', now)).not.toBeNull();
    expect(await problem('x'.repeat(46), 42, 'lobby', now)).not.toBeNull();
    const cellToken = await signAvatarToken(key, { id: 7, scope: 'world', socket: 5, cell: { x: -3, z: 12 } }, now);
    expect(await verifyAvatarToken(key, cellToken, 7, 'world', now)).toEqual({
      ok: true,
      claims: { id: 7, issuedAt: now, socket: 5, cell: { x: -3, z: 12 } },
    });
    // The socket number and the cell are signed: changing either breaks the MAC.
    const bytes = Buffer.from(cellToken, 'base64url');
    for (const offset of [9, 13, 14]) {
      const edited = Buffer.from(bytes);
      edited[offset]! ^= 1;
      expect(await problem(edited.toString('base64url'), 7, 'world', now)).toMatch(/signature/);
    }
  });
});

describe('session tokens', () => {
  it('name a random session id, verify until expiry, and refuse forgeries', async () => {
    const key = await deriveKey(master, 'session');
    const now = 1_800_000_000_000;
    const a = await signSession(key, now);
    const b = await signSession(key, now);
    expect(a.claims.id).not.toBe(b.claims.id);
    expect(await verifySession(key, a.token, now + 5000)).toMatchObject({ id: a.claims.id });
    expect(await verifySession(key, a.token, now + SESSION_TTL_MS + 1000)).toBeNull();
    expect(await verifySession(await deriveKey(master, 'avatar'), a.token, now)).toBeNull();
    expect(await verifySession(key, a.token.slice(0, -2) + 'AA', now)).toBeNull();
  });
});

describe('client identity and budgets', () => {
  const limits = { frame: { ratePerSecond: 30, burst: 15 } };
  const seats = { client: 4, anonymousAddress: 32, address: 128 };

  it('holds every socket of one client to one budget, and shares an address’s among its session-less sockets', () => {
    const ledger = new ClientLedger(limits, seats);
    const session = { client: 's:abc', ip: '198.51.100.1' };
    let passed = 0;
    for (let i = 0; i < 100; i++) if (ledger.take(session, 'frame', 0)) passed++;
    expect(passed).toBe(15);
    const anonymous = { client: 'ip:198.51.100.2', ip: '198.51.100.2' };
    passed = 0;
    for (let i = 0; i < 1000; i++) if (ledger.take(anonymous, 'frame', 0)) passed++;
    expect(passed).toBe(15 * ANONYMOUS_SHARE);
  });

  it('holds one address to its total, however many sessions it mints', () => {
    const ledger = new ClientLedger(limits, seats);
    let passed = 0;
    for (let s = 0; s < 100; s++)
      for (let i = 0; i < 20; i++) if (ledger.take({ client: `s:${s}`, ip: '198.51.100.3' }, 'frame', 0)) passed++;
    expect(passed).toBe(15 * IP_SHARE);
  });

  it('caps seats per client and per address, and frees them', () => {
    const ledger = new ClientLedger(limits, seats);
    const ref = { client: 's:seated', ip: '198.51.100.4' };
    for (let i = 0; i < 4; i++) {
      expect(ledger.seatProblem(ref)).toBeNull();
      ledger.seat(ref, 0);
    }
    expect(ledger.seatProblem(ref)).toMatch(/already holds 4 sockets/);
    ledger.unseat(ref, 0);
    expect(ledger.seatProblem(ref)).toBeNull();
    ledger.clearSeats();
    expect(ledger.seatProblem(ref)).toBeNull();
  });

  it('treats loopback as local development: each socket its own client, no address budget', async () => {
    expect(isLocalIp('127.0.0.1') && isLocalIp('::1') && isLocalIp('local')).toBe(true);
    expect(isLocalIp('203.0.113.9')).toBe(false);
    const key = deriveKey(master, 'session');
    const local = await identifyClient(
      new Request('http://x/rooms/avatar/a', { headers: { 'X-Cairn-Client-IP': '127.0.0.1' } }),
      () => key,
      0,
    );
    const again = await identifyClient(
      new Request('http://x/rooms/avatar/a', { headers: { 'X-Cairn-Client-IP': '127.0.0.1' } }),
      () => key,
      0,
    );
    expect(local.client).toMatch(/^sock:/);
    expect(again.client).not.toBe(local.client);
    const remote = await identifyClient(
      new Request('http://x/rooms/avatar/a', { headers: { 'X-Cairn-Client-IP': '203.0.113.9' } }),
      () => key,
      0,
    );
    expect(remote).toEqual({ client: 'ip:203.0.113.9', ip: '203.0.113.9' });
    const { token, claims } = await signSession(await key, Date.now());
    const withSession = await identifyClient(
      new Request(`http://x/rooms/avatar/a?session=${token}`, { headers: { 'X-Cairn-Client-IP': '203.0.113.9' } }),
      () => key,
      Date.now(),
    );
    expect(withSession.client).toBe(`s:${claims.id}`);
  });
});

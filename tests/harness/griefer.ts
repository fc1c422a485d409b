/**
 * The abuse suite's harness: clients that play many addresses (`X-Test-Client-IP`, honoured only
 * because the test server runs with `TRUST_TEST_IP_HEADER=1`), sessions, proofs of avatar identity,
 * and the attacks of docs/security.md as small functions, so each test runs one attack while
 * honest clients exchange traffic and asserts what the honest clients receive.
 */
import { networkInterfaces } from 'node:os';
import WebSocket from 'ws';
import { FRAME_BYTES, FRAME_OFFSET, createFrame, encodeFrame } from '../../src/net/protocol/frame.ts';
import { cellRoom, type Cell, type WorldEntry } from '../../src/net/protocol/world.ts';
import { RelayClient } from './net-client.ts';
import { VoiceSocket, type Received } from './voice-socket.ts';
import { wsUrl } from './ws-client.ts';

/** Headers that make a request come from `ip` (test servers only). */
export function fromIp(ip: string): Record<string, string> {
  return { 'X-Test-Client-IP': ip };
}

/**
 * The address header Cloudflare sets, sent by a client that hopes to be believed (a forgery: the
 * front of every local server replaces it with the connection's real address, scripts/front.ts).
 */
export function forgedAddress(ip: string): Record<string, string> {
  return { 'CF-Connecting-IP': ip };
}

/**
 * This machine's first non-loopback IPv4 address: connecting to it, a client's real address is
 * not loopback, as a visitor's on the local network is (`npm start -- --ip 0.0.0.0`).
 */
export function networkAddress(): string {
  const address = Object.values(networkInterfaces())
    .flat()
    .find((a) => a && !a.internal && a.family === 'IPv4');
  if (!address) throw new Error('this test needs a non-loopback IPv4 address on this machine (none in os.networkInterfaces())');
  return address.address;
}

let nextAddress = 1;
/** Vitest's id of this file's worker: server files run side by side against one server. */
const fileWorker = Number(process.env.VITEST_WORKER_ID ?? 0) % 256;
/**
 * A fresh address per call (203.<file's worker>.x.y), so tests never share budgets by accident,
 * not even with another file running at the same time.
 */
export function freshIp(): string {
  const n = nextAddress++;
  return `203.${fileWorker}.${Math.floor(n / 250) % 256}.${(n % 250) + 1}`;
}

/** `POST /api/session` from `ip`: a session token, or the refusal's status. */
export async function session(base: string, ip: string): Promise<string> {
  const response = await fetch(`${base}/api/session`, { method: 'POST', headers: fromIp(ip) });
  if (!response.ok) throw new Error(`session: HTTP ${response.status} ${await response.text()}`);
  return ((await response.json()) as { token: string }).token;
}

/**
 * Joins the relay room `room` under a session and returns the socket, its id, its avatar token (the
 * proof voice wants) and the session: the token proves the avatar only to voice sockets of that
 * session (`?session=`), while this socket stays open. A new session is minted from `ip` unless
 * one is given.
 */
export async function relayProof(
  base: string,
  room: string,
  ip = freshIp(),
  sessionToken?: string,
): Promise<{ client: RelayClient; id: number; token: string; session: string }> {
  const owner = sessionToken ?? (await session(base, ip));
  const client = await RelayClient.join(wsUrl(base, `/rooms/avatar/${encodeURIComponent(room)}?session=${owner}`), fromIp(ip));
  const welcome = client.welcome()!;
  return { client, id: welcome.id, token: welcome.avatarToken, session: owner };
}

/**
 * Enters the world at (x, z), publishes in its cell under a session (minted from `ip` unless
 * given), and returns the world id, the cell ack's avatar token and the session.
 */
export async function worldProof(
  base: string,
  x: number,
  z: number,
  ip = freshIp(),
  sessionToken?: string,
): Promise<{ client: RelayClient; entry: WorldEntry; token: string; session: string }> {
  const owner = sessionToken ?? (await session(base, ip));
  const response = await fetch(`${base}/api/world/enter`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...fromIp(ip) },
    body: JSON.stringify({ x, z }),
  });
  if (!response.ok) throw new Error(`enter: HTTP ${response.status} ${await response.text()}`);
  const entry = (await response.json()) as WorldEntry;
  const client = await RelayClient.join(`${cellUrl(base, entry.cell, entry.token, 'pub')}&session=${owner}`, fromIp(ip));
  await client.waitFor(() => client.controls('cell').length > 0, 'cell ack');
  return { client, entry, token: client.controls<{ avatarToken: string }>('cell')[0]!.avatarToken, session: owner };
}

export function cellUrl(base: string, cell: Cell, token: string, role: 'pub' | 'sub'): string {
  return wsUrl(base, `/rooms/avatar/${encodeURIComponent(cellRoom(cell))}?role=${role}&token=${token}`);
}

/** A voice socket from `ip` (with `?session=` when given). */
export async function voiceFrom(
  base: string,
  room: string,
  ip: string,
  sessionToken?: string,
): Promise<VoiceSocket & { id: number; token: string; welcome: Received }> {
  const query = sessionToken ? `?session=${sessionToken}` : '';
  return VoiceSocket.joinWith(base, room, query, fromIp(ip));
}

/** A raw socket that only sends (the griefer does not read what comes back, beyond the close). */
export async function rawSocket(url: string, ip: string): Promise<WebSocket> {
  const socket = new WebSocket(url, { headers: fromIp(ip) });
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
    socket.once('unexpected-response', (_request, response) => reject(new Error(`HTTP ${response.statusCode}`)));
  });
  socket.on('error', () => undefined);
  return socket;
}

/**
 * Frames a receiver must refuse, each valid but for one field: what a griefer sends to blind a
 * room (the relay must drop every one).
 */
export function invalidFrames(): Array<{ name: string; bytes: Uint8Array }> {
  const good = (): Uint8Array => {
    const bytes = new Uint8Array(FRAME_BYTES);
    encodeFrame({ ...createFrame(), seq: 1, x: 1 }, bytes);
    return bytes;
  };
  const withFloat = (offset: number, value: number): Uint8Array => {
    const bytes = good();
    new DataView(bytes.buffer).setFloat32(offset, value, true);
    return bytes;
  };
  const withByte = (offset: number, value: number): Uint8Array => {
    const bytes = good();
    bytes[offset] = value;
    return bytes;
  };
  return [
    { name: 'animation state 200', bytes: withByte(FRAME_OFFSET.animState, 200) },
    { name: 'reserved flag bits', bytes: withByte(FRAME_OFFSET.flags, 0x80) },
    { name: 'NaN x', bytes: withFloat(FRAME_OFFSET.x, Number.NaN) },
    { name: 'infinite y', bytes: withFloat(FRAME_OFFSET.y, Number.POSITIVE_INFINITY) },
    { name: 'z far outside the world', bytes: withFloat(FRAME_OFFSET.z, 1e9) },
    { name: 'facing 9', bytes: withFloat(FRAME_OFFSET.facing, 9) },
    { name: 'NaN facing', bytes: withFloat(FRAME_OFFSET.facing, Number.NaN) },
  ];
}

/** Sends `count` frames built by `make(i)` on `socket` as fast as it takes them. */
export function flood(socket: WebSocket, count: number, make: (i: number) => Uint8Array | string): void {
  for (let i = 0; i < count; i++) socket.send(make(i));
}

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

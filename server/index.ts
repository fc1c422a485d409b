import * as v from 'valibot';
import { roomNameIssue } from '../src/net/protocol/room-name.ts';
import { DIRECTORY_ROOM, isCanonicalCellRoom, parseCellRoom } from '../src/net/protocol/world.ts';
import { parseRoomRequest } from './avatar/relay-options.ts';
import type { Env } from './env.ts';
import { CLIENT_IP_HEADER, requestIp } from './identity/client.ts';

export { RelayRoom } from './relay/relay-room.ts';
export { WorldCell } from './world/world-cell.ts';
export { WorldDirectoryRoom } from './world/world-directory-room.ts';
export { VoiceRoom } from './voice-room.ts';
export { EditsRoom } from './world/edits-room.ts';

/** Room kinds in `/rooms/:kind/:name`. */
const ROOM_KINDS = ['avatar', 'voice', 'edits'] as const;

const ROOM_ROUTE = /^\/rooms\/([^/]+)\/([^/]*)$/;
/** `GET /api/rooms/avatar/:room`: a relay room's or cell's figures (JSON). */
const ROOM_STATS_ROUTE = /^\/api\/rooms\/avatar\/([^/]*)$/;

/** The world directory: one object reached through RPC (see server/world/world-directory-room.ts). */
function directory(env: Env): DurableObjectStub<import('./world/world-directory-room.ts').WorldDirectoryRoom> {
  return env.WORLD_DIRECTORY.get(env.WORLD_DIRECTORY.idFromName(DIRECTORY_ROOM));
}

const EnterBody = v.nullable(v.object({ x: v.optional(v.unknown()), z: v.optional(v.unknown()) }));
const HopBody = v.object({ token: v.string(), cell: v.object({ x: v.number(), z: v.number() }) });

/** Reads a small JSON body; null when there is none, a Response when it is not a JSON object. */
async function jsonBody(request: Request): Promise<object | null | Response> {
  const body = await request.text();
  if (body.length === 0) return null;
  if (body.length > 4096) return text(413, 'body too large (at most 4,096 bytes)');
  try {
    const value: unknown = JSON.parse(body);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return text(400, 'body must be a JSON object');
    return value;
  } catch {
    return text(400, 'body is not JSON');
  }
}

/** `/api/world…`: the open world's directory (population, identities, hops). */
async function worldApi(request: Request, url: URL, env: Env): Promise<Response> {
  const stub = directory(env);
  if (url.pathname === '/api/world') {
    if (request.method !== 'GET') return text(405, '/api/world answers GET only');
    return Response.json(await stub.worldSnapshot());
  }
  if (request.method !== 'POST') return text(405, `${url.pathname} answers POST only`);
  const body = await jsonBody(request);
  if (body instanceof Response) return body;
  if (url.pathname === '/api/world/enter') {
    const parsed = v.safeParse(EnterBody, body);
    let position: { x: number; z: number } | null = null;
    if (parsed.success && parsed.output && (parsed.output.x !== undefined || parsed.output.z !== undefined)) {
      const { x, z } = parsed.output;
      if (typeof x !== 'number' || typeof z !== 'number') return text(400, 'x and z must both be numbers (metres), or both absent');
      position = { x, z };
    }
    const result = await stub.worldEnter(position, requestIp(request, env.TRUST_TEST_IP_HEADER === '1'));
    return result.ok ? Response.json(result.value) : text(result.status, result.problem);
  }
  if (url.pathname === '/api/world/hop') {
    const parsed = v.safeParse(HopBody, body);
    if (!parsed.success) return text(400, 'expected {"token": "…", "cell": {"x": n, "z": n}}');
    const result = await stub.worldHop(
      parsed.output.token.slice(0, 200),
      parsed.output.cell,
      requestIp(request, env.TRUST_TEST_IP_HEADER === '1'),
    );
    return result.ok ? Response.json(result.value) : text(result.status, result.problem);
  }
  return text(404, `not found: ${url.pathname}; the world API has GET /api/world, POST /api/world/enter, POST /api/world/hop`);
}

function text(status: number, body: string): Response {
  return new Response(body + '\n', { status, headers: { 'content-type': 'text/plain; charset=utf-8' } });
}

/** Decodes and checks a room name from a URL segment; returns the name or a 400 response. */
function roomFromSegment(segment: string): string | Response {
  let room: string;
  try {
    room = decodeURIComponent(segment);
  } catch {
    return text(400, 'bad room name: not valid percent-encoding');
  }
  const problem = roomNameIssue(room);
  if (problem) return text(400, `bad room name: ${problem}`);
  if (parseCellRoom(room) && !isCanonicalCellRoom(room)) {
    const cell = parseCellRoom(room)!;
    return text(400, `bad room name: a cell has one name; use world:cell:${cell.x}:${cell.z}`);
  }
  return room;
}

/** The object namespace and name an avatar room lives in. */
function avatarObject(env: Env, room: string): DurableObjectStub {
  if (parseCellRoom(room)) return env.WORLD_CELL.get(env.WORLD_CELL.idFromName(room));
  return env.RELAY_ROOM.get(env.RELAY_ROOM.idFromName(room));
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);

    if (url.pathname === '/api/health') {
      return Response.json({ ok: true, service: 'cairn', rooms: ROOM_KINDS });
    }

    if (url.pathname === '/api/session') {
      if (request.method !== 'POST') return text(405, '/api/session answers POST only');
      const session = await directory(env).issueSession(requestIp(request, env.TRUST_TEST_IP_HEADER === '1'));
      return session ? Response.json(session) : text(429, 'too many sessions from this address lately; reuse the one you have');
    }

    if (url.pathname === '/api/world' || url.pathname.startsWith('/api/world/')) return worldApi(request, url, env);

    const stats = ROOM_STATS_ROUTE.exec(url.pathname);
    if (stats) {
      const room = roomFromSegment(stats[1] as string);
      if (room instanceof Response) return room;
      if (request.method !== 'GET') return text(405, `${url.pathname} answers GET only`);
      if (room === DIRECTORY_ROOM) return text(404, `${DIRECTORY_ROOM} is not a relay room; see GET /api/world`);
      return avatarObject(env, room).fetch(new Request(request.url, { headers: { 'X-Cairn-Room': room, 'X-Cairn-Action': 'stats' } }));
    }

    const match = ROOM_ROUTE.exec(url.pathname);
    if (match) {
      const kind = match[1] as string;
      if (!(ROOM_KINDS as readonly string[]).includes(kind))
        return text(404, `unknown room kind "${kind}"; expected one of: ${ROOM_KINDS.join(', ')}`);
      const room = roomFromSegment(match[2] as string);
      if (room instanceof Response) return room;
      if (kind === 'avatar') {
        const parsed = parseRoomRequest(url);
        if (!parsed.ok) return text(400, `bad avatar room request: ${parsed.problem}`);
      }
      if (request.headers.get('Upgrade')?.toLowerCase() !== 'websocket') {
        return text(426, `${url.pathname} is a WebSocket endpoint; send "Upgrade: websocket"`);
      }
      const stub =
        kind === 'voice'
          ? env.VOICE_ROOM.get(env.VOICE_ROOM.idFromName(room))
          : kind === 'edits'
            ? env.EDITS_ROOM.get(env.EDITS_ROOM.idFromName(room))
            : room === DIRECTORY_ROOM
              ? directory(env)
              : avatarObject(env, room);
      const forwarded = new Request(request);
      // X-Cairn-* headers are ours: a client must not be able to send them to an object.
      for (const name of [...forwarded.headers.keys()]) if (name.toLowerCase().startsWith('x-cairn-')) forwarded.headers.delete(name);
      forwarded.headers.set('X-Cairn-Room', room);
      forwarded.headers.set(CLIENT_IP_HEADER, requestIp(request, env.TRUST_TEST_IP_HEADER === '1'));
      return stub.fetch(forwarded);
    }

    // Static assets are matched before the Worker runs; anything that reaches here has no file.
    return text(404, `not found: ${url.pathname}`);
  },
} satisfies ExportedHandler<Env>;

import type { AvatarRoom } from './avatar-room.ts';
import { parseRoomRequest } from './avatar/relay-options.ts';
import type { Env } from './env.ts';
import { DIRECTORY_ROOM } from '../src/net/protocol/world.ts';
import { roomNameProblem } from './room-name.ts';

export { AvatarRoom } from './avatar-room.ts';
export { VoiceRoom } from './voice-room.ts';
export { EditsRoom } from './world/edits-room.ts';

/** Room kinds and the Durable Object namespace each lives in. */
const ROOM_KINDS = {
  avatar: (env: Env) => env.AVATAR_ROOM,
  voice: (env: Env) => env.VOICE_ROOM,
  edits: (env: Env) => env.EDITS_ROOM,
} as const;

const ROOM_ROUTE = /^\/rooms\/([^/]+)\/([^/]*)$/;
/** `GET /api/rooms/avatar/:room`: a relay room's figures (JSON). */
const ROOM_STATS_ROUTE = /^\/api\/rooms\/avatar\/([^/]*)$/;

/** The world directory: an AvatarRoom object reached through RPC (see server/world/directory.ts). */
function directory(env: Env): DurableObjectStub<AvatarRoom> {
  const namespace = env.AVATAR_ROOM as unknown as DurableObjectNamespace<AvatarRoom>;
  return namespace.get(namespace.idFromName(DIRECTORY_ROOM));
}

/** Reads a small JSON body; null when there is none, a Response when it is not JSON. */
async function jsonBody(request: Request): Promise<Record<string, unknown> | null | Response> {
  const body = await request.text();
  if (body.length === 0) return null;
  if (body.length > 4096) return text(413, 'body too large (at most 4,096 bytes)');
  try {
    const value: unknown = JSON.parse(body);
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return text(400, 'body must be a JSON object');
    return value as Record<string, unknown>;
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
    let position: { x: number; z: number } | null = null;
    if (body && (body.x !== undefined || body.z !== undefined)) {
      if (typeof body.x !== 'number' || typeof body.z !== 'number') return text(400, 'x and z must both be numbers (metres), or both absent');
      position = { x: body.x, z: body.z };
    }
    const result = await stub.worldEnter(position);
    return result.ok ? Response.json(result.value) : text(result.status, result.problem);
  }
  if (url.pathname === '/api/world/hop') {
    const cell = body?.cell as { x?: unknown; z?: unknown } | undefined;
    if (!body || typeof body.token !== 'string' || typeof cell?.x !== 'number' || typeof cell?.z !== 'number') return text(400, 'expected {"token": "…", "cell": {"x": n, "z": n}}');
    const result = await stub.worldHop(body.token.slice(0, 200), { x: cell.x, z: cell.z });
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
  const problem = roomNameProblem(room);
  if (problem) return text(400, `bad room name: ${problem}`);
  return room;
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);

    if (url.pathname === '/api/health') {
      return Response.json({ ok: true, service: 'cairn', rooms: Object.keys(ROOM_KINDS) });
    }

    if (url.pathname === '/api/world' || url.pathname.startsWith('/api/world/')) return worldApi(request, url, env);

    const stats = ROOM_STATS_ROUTE.exec(url.pathname);
    if (stats) {
      const room = roomFromSegment(stats[1] as string);
      if (room instanceof Response) return room;
      if (request.method !== 'GET') return text(405, `${url.pathname} answers GET only`);
      const stub = env.AVATAR_ROOM.get(env.AVATAR_ROOM.idFromName(room));
      return stub.fetch(new Request(request.url, { headers: { 'X-Cairn-Room': room, 'X-Cairn-Action': 'stats' } }));
    }

    const match = ROOM_ROUTE.exec(url.pathname);
    if (match) {
      const kind = match[1] as string;
      const namespaceOf = ROOM_KINDS[kind as keyof typeof ROOM_KINDS];
      if (!namespaceOf) return text(404, `unknown room kind "${kind}"; expected one of: ${Object.keys(ROOM_KINDS).join(', ')}`);
      const room = roomFromSegment(match[2] as string);
      if (room instanceof Response) return room;
      if (kind === 'avatar') {
        const parsed = parseRoomRequest(url);
        if (!parsed.ok) return text(400, `bad avatar room request: ${parsed.problem}`);
      }
      if (request.headers.get('Upgrade')?.toLowerCase() !== 'websocket') {
        return text(426, `${url.pathname} is a WebSocket endpoint; send "Upgrade: websocket"`);
      }
      const namespace = namespaceOf(env);
      const stub = namespace.get(namespace.idFromName(room));
      const forwarded = new Request(request);
      // X-Cairn-* headers are ours: a client must not be able to send them to an object.
      for (const name of [...forwarded.headers.keys()]) if (name.toLowerCase().startsWith('x-cairn-')) forwarded.headers.delete(name);
      forwarded.headers.set('X-Cairn-Room', room);
      return stub.fetch(forwarded);
    }

    // Static assets are matched before the Worker runs; anything that reaches here has no file.
    return text(404, `not found: ${url.pathname}`);
  },
} satisfies ExportedHandler<Env>;

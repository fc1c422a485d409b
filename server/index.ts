import { parseRoomRequest } from './avatar/relay-options.ts';
import type { Env } from './env.ts';
import { roomNameProblem } from './room-name.ts';

export { AvatarRoom } from './avatar-room.ts';
export { VoiceRoom } from './voice-room.ts';

/** Room kinds and the Durable Object namespace each lives in. */
const ROOM_KINDS = {
  avatar: (env: Env) => env.AVATAR_ROOM,
  voice: (env: Env) => env.VOICE_ROOM,
} as const;

const ROOM_ROUTE = /^\/rooms\/([^/]+)\/([^/]*)$/;
/** `GET /api/rooms/avatar/:room`: a relay room's figures (JSON). */
const ROOM_STATS_ROUTE = /^\/api\/rooms\/avatar\/([^/]*)$/;

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
      forwarded.headers.set('X-Cairn-Room', room);
      return stub.fetch(forwarded);
    }

    // Static assets are matched before the Worker runs; anything that reaches here has no file.
    return text(404, `not found: ${url.pathname}`);
  },
} satisfies ExportedHandler<Env>;

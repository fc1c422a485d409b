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

function text(status: number, body: string): Response {
  return new Response(body + '\n', { status, headers: { 'content-type': 'text/plain; charset=utf-8' } });
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);

    if (url.pathname === '/api/health') {
      return Response.json({ ok: true, service: 'cairn', rooms: Object.keys(ROOM_KINDS) });
    }

    const match = ROOM_ROUTE.exec(url.pathname);
    if (match) {
      const kind = match[1] as string;
      const namespaceOf = ROOM_KINDS[kind as keyof typeof ROOM_KINDS];
      if (!namespaceOf) return text(404, `unknown room kind "${kind}"; expected one of: ${Object.keys(ROOM_KINDS).join(', ')}`);
      let room: string;
      try {
        room = decodeURIComponent(match[2] as string);
      } catch {
        return text(400, 'bad room name: not valid percent-encoding');
      }
      const problem = roomNameProblem(room);
      if (problem) return text(400, `bad room name: ${problem}`);
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

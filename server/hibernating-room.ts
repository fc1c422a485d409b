import { DurableObject } from 'cloudflare:workers';
import type { Env } from './env.ts';

/** What each socket carries through hibernation (serializeAttachment holds at most 2,048 bytes). */
export interface SocketAttachment {
  /** Server-assigned peer id, unique within the room. */
  id: number;
  /** Room name as the client asked for it. */
  room: string;
  /** ms since epoch when the socket joined. */
  joinedAt: number;
}

/**
 * Base class for Cairn's rooms: accepts hibernating WebSockets (so an idle room costs nothing),
 * tags each with its peer id, and completes close handshakes politely. Subclasses add the relay
 * logic by overriding {@link onMessage} / {@link onLeave}.
 *
 * Nothing lives only in memory: the peer id counter is in durable storage and per-socket data is
 * in attachments, so an evicted object rebuilds its view from `ctx.getWebSockets()`.
 */
export class HibernatingRoom extends DurableObject<Env> {
  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get('Upgrade')?.toLowerCase() !== 'websocket') {
      return new Response('expected a WebSocket upgrade', { status: 426 });
    }
    const room = request.headers.get('X-Cairn-Room') ?? '';
    const refusal = await this.admit(request);
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    if (refusal) {
      // Accept then close at once, so the client sees a close code and reason rather than a failed
      // handshake it cannot explain.
      server.accept();
      server.close(refusal.code, refusal.reason);
      return new Response(null, { status: 101, webSocket: client });
    }
    const id = await this.nextPeerId();
    const attachment: SocketAttachment = { id, room, joinedAt: Date.now() };
    this.ctx.acceptWebSocket(server, [`peer:${id}`]);
    server.serializeAttachment(attachment);
    await this.onJoin(server, attachment);
    return new Response(null, { status: 101, webSocket: client });
  }

  /** Returns a close code and reason to refuse a join, or null to admit it. */
  protected async admit(_request: Request): Promise<{ code: number; reason: string } | null> {
    return null;
  }

  protected async onJoin(_ws: WebSocket, _peer: SocketAttachment): Promise<void> {}

  protected async onMessage(_ws: WebSocket, _peer: SocketAttachment, _message: string | ArrayBuffer): Promise<void> {}

  protected async onLeave(_ws: WebSocket, _peer: SocketAttachment): Promise<void> {}

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    const peer = ws.deserializeAttachment() as SocketAttachment | null;
    if (!peer) return;
    await this.onMessage(ws, peer, message);
  }

  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    const peer = ws.deserializeAttachment() as SocketAttachment | null;
    // Answer the client's close frame with the same code so its close completes cleanly.
    // 1005/1006 are reserved and may not be sent.
    try {
      ws.close(code === 1005 || code === 1006 ? 1000 : code, reason);
    } catch {
      // already closed
    }
    if (peer) await this.onLeave(ws, peer);
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    const peer = ws.deserializeAttachment() as SocketAttachment | null;
    if (peer) await this.onLeave(ws, peer);
  }

  /** Open sockets only: getWebSockets() can still list sockets that are closing. */
  protected openSockets(): WebSocket[] {
    return this.ctx.getWebSockets().filter((ws) => ws.readyState === WebSocket.OPEN);
  }

  private async nextPeerId(): Promise<number> {
    const last = (await this.ctx.storage.get<number>('lastPeerId')) ?? 0;
    // 32-bit ids on the wire; wrap long before overflow (ids only need to be unique among the living).
    const id = last >= 0x7fffffff ? 1 : last + 1;
    await this.ctx.storage.put('lastPeerId', id);
    return id;
  }
}

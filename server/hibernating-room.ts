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

/** A refusal: the socket is accepted and closed at once with this code and reason. */
export interface Refusal {
  code: number;
  reason: string;
}

/**
 * Base class for Cairn's rooms: accepts hibernating WebSockets (so an idle room costs nothing),
 * tags each with its peer id, and completes close handshakes politely. Subclasses add the relay
 * logic by overriding {@link onMessage} / {@link onLeave}, and may extend the attachment
 * (`A`) through {@link describePeer} and choose ids through {@link assignPeerId}.
 *
 * Nothing lives only in memory: the peer id counter is in durable storage and per-socket data is
 * in attachments, so an evicted object rebuilds its view from `ctx.getWebSockets()`. The
 * attachment cache below is only a cache: a miss (after hibernation) reads the attachment again.
 */
/**
 * Accepts a socket and closes it at once with `refusal`, so the client sees a close code and
 * reason rather than a failed handshake it cannot explain. It is accepted as a hibernatable
 * socket (tagged `refused`, without an attachment, so no room logic ever sees it): the runtime
 * then completes the close itself, where a plain `accept()`ed socket closed at once logs
 * "Uncaught Error: Network connection lost" for every refusal.
 */
export function refuseSocket(ctx: DurableObjectState, refusal: Refusal): Response {
  const pair = new WebSocketPair();
  ctx.acceptWebSocket(pair[1], ['refused']);
  pair[1].close(refusal.code, refusal.reason);
  return new Response(null, { status: 101, webSocket: pair[0] });
}

export class HibernatingRoom<A extends SocketAttachment = SocketAttachment> extends DurableObject<Env> {
  /** Attachments by socket, so the hot path does not deserialize on every message. */
  private readonly attachments = new WeakMap<WebSocket, A>();
  /** Sockets whose leave has been handled (close and error can both fire for one socket). */
  private readonly departed = new WeakSet<WebSocket>();

  /**
   * The join in progress (each waits for the one before it). A join reads the room and then claims
   * part of it (a seat, a place under capacity, the next id) across awaits; the runtime's input
   * gate does not keep two joins apart when they resume from one shared promise (a new room's
   * signing key), so without this queue both could read the same free seat or the same id.
   */
  private joinQueue: Promise<unknown> = Promise.resolve();

  override async fetch(request: Request): Promise<Response> {
    if (request.headers.get('Upgrade')?.toLowerCase() !== 'websocket') {
      return new Response('expected a WebSocket upgrade', { status: 426 });
    }
    const turn = this.joinQueue.then(() => this.join(request));
    this.joinQueue = turn.catch(() => undefined);
    return turn;
  }

  /** Admits or refuses one socket; runs alone (see {@link joinQueue}). */
  private async join(request: Request): Promise<Response> {
    const room = request.headers.get('X-Cairn-Room') ?? '';
    const refusal = await this.admit(request);
    if (refusal) return refuseSocket(this.ctx, refusal);
    const pair = new WebSocketPair();
    const [client, server] = [pair[0], pair[1]];
    const id = await this.assignPeerId(request);
    const attachment = await this.describePeer(request, { id, room, joinedAt: Date.now() });
    this.ctx.acceptWebSocket(server, [`peer:${id}`]);
    server.serializeAttachment(attachment);
    this.attachments.set(server, attachment);
    await this.onJoin(server, attachment);
    return new Response(null, { status: 101, webSocket: client });
  }

  /** Returns a close code and reason to refuse a join, or null to admit it. */
  protected async admit(_request: Request): Promise<Refusal | null> {
    return null;
  }

  /** The id for a joining socket. Default: the room's durable counter (ids are never reused). */
  protected async assignPeerId(_request: Request): Promise<number> {
    return this.nextPeerId();
  }

  /** The attachment to store for a joining socket; subclasses add their own fields to `base`. */
  protected async describePeer(_request: Request, base: SocketAttachment): Promise<A> {
    return base as A;
  }

  protected async onJoin(_ws: WebSocket, _peer: A): Promise<void> {}

  protected async onMessage(_ws: WebSocket, _peer: A, _message: string | ArrayBuffer): Promise<void> {}

  protected async onLeave(_ws: WebSocket, _peer: A): Promise<void> {}

  /** The socket's attachment (cached; read from the socket after hibernation). */
  protected peerOf(ws: WebSocket): A | null {
    let peer = this.attachments.get(ws);
    if (!peer) {
      peer = (ws.deserializeAttachment() as A | null) ?? undefined;
      if (peer) this.attachments.set(ws, peer);
    }
    return peer ?? null;
  }

  /** Replaces a socket's attachment (durably, and in the cache). Keep it under 2,048 bytes. */
  protected updatePeer(ws: WebSocket, peer: A): void {
    ws.serializeAttachment(peer);
    this.attachments.set(ws, peer);
  }

  override async webSocketMessage(ws: WebSocket, message: string | ArrayBuffer): Promise<void> {
    const peer = this.peerOf(ws);
    if (!peer) return;
    await this.onMessage(ws, peer, message);
  }

  override async webSocketClose(ws: WebSocket, code: number, reason: string): Promise<void> {
    const peer = this.peerOf(ws);
    // Answer the client's close frame with the same code so its close completes cleanly.
    // 1005/1006 are reserved and may not be sent.
    try {
      ws.close(code === 1005 || code === 1006 ? 1000 : code, reason);
    } catch {
      // already closed
    }
    await this.depart(ws, peer);
  }

  override async webSocketError(ws: WebSocket): Promise<void> {
    await this.depart(ws, this.peerOf(ws));
  }

  /** Closes a socket from the server side and runs its leave once. */
  protected async dismiss(ws: WebSocket, code: number, reason: string): Promise<void> {
    try {
      ws.close(code, reason);
    } catch {
      // already closed
    }
    await this.depart(ws, this.peerOf(ws));
  }

  /** True once a socket's leave has run (it may still be listed while closing). */
  protected hasDeparted(ws: WebSocket): boolean {
    return this.departed.has(ws);
  }

  private async depart(ws: WebSocket, peer: A | null): Promise<void> {
    if (this.departed.has(ws)) return;
    this.departed.add(ws);
    if (peer) await this.onLeave(ws, peer);
  }

  /** Open sockets only: getWebSockets() can still list sockets that are closing. */
  protected openSockets(): WebSocket[] {
    return this.ctx.getWebSockets().filter((ws) => ws.readyState === WebSocket.OPEN && !this.departed.has(ws));
  }

  private async nextPeerId(): Promise<number> {
    const last = (await this.ctx.storage.get<number>('lastPeerId')) ?? 0;
    // 32-bit ids on the wire; wrap long before overflow (ids only need to be unique among the living).
    const id = last >= 0x7fffffff ? 1 : last + 1;
    await this.ctx.storage.put('lastPeerId', id);
    return id;
  }
}

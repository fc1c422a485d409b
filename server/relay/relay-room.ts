import { CloseCode } from '../../src/net/protocol/control.ts';
import { DEFAULT_RELAY_OPTIONS, parseRoomRequest } from '../avatar/relay-options.ts';
import type { Env } from '../env.ts';
import type { Refusal, SocketAttachment } from '../hibernating-room.ts';
import { randomSocketNumber } from '../identity/avatar-token.ts';
import { CLIENT_IP_HEADER } from '../identity/client.ts';
import { AvatarRelay, type AvatarPeer } from './avatar-relay.ts';

/**
 * A plain room of avatar sync (`/rooms/avatar/:name`): the relay of {@link AvatarRelay} for
 * everyone who joins by name. The founder (earliest joiner) may ask for a fixed mode or a smaller
 * capacity (`?mode=…&capacity=…`); joins past capacity, or past a client's seats, are refused with
 * a close code and reason. Its `welcome` carries an avatar token for the voice room of the same name.
 */
export class RelayRoom extends AvatarRelay {
  /** Client identities worked out in admit(), for describePeer of the same request. */
  private readonly admitted = new WeakMap<Request, AvatarPeer['client']>();

  constructor(ctx: DurableObjectState, env: Env) {
    super(ctx, env, DEFAULT_RELAY_OPTIONS, false);
  }

  protected avatarScope(peer: AvatarPeer): string {
    return peer.room;
  }

  protected override async admit(request: Request): Promise<Refusal | null> {
    const parsed = parseRoomRequest(new URL(request.url));
    if (!parsed.ok) {
      this.countRefusal();
      return { code: 1008, reason: parsed.problem };
    }
    const members = this.memberTable();
    const capacity = members.size === 0 ? (parsed.value.capacity ?? this.options.capacity) : this.settings.capacity;
    if (members.size >= capacity) {
      this.countRefusal();
      return { code: CloseCode.roomFull, reason: `room full: ${members.size} of ${capacity} peers` };
    }
    const { ref, problem } = await this.clientOf(request);
    if (problem) {
      this.countRefusal();
      return { code: CloseCode.tooManySockets, reason: problem };
    }
    this.admitted.set(request, ref.client);
    return null;
  }

  protected override async describePeer(request: Request, base: SocketAttachment): Promise<AvatarPeer> {
    const parsed = parseRoomRequest(new URL(request.url));
    const client = this.admitted.get(request) ?? `sock:${base.id}`;
    return {
      ...base,
      client,
      ip: request.headers.get(CLIENT_IP_HEADER) ?? 'local',
      request: parsed.ok ? parsed.value : {},
      role: 'pub',
      socket: randomSocketNumber(),
      owner: client,
    };
  }

  protected override async onJoin(ws: WebSocket, peer: AvatarPeer): Promise<void> {
    await this.welcome(ws, peer);
  }

  protected override async onLeave(ws: WebSocket, peer: AvatarPeer): Promise<void> {
    this.removeMember(ws, peer);
  }
}

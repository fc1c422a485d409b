import { Emitter } from '../../core/emitter.ts';
import { FRAME_BYTES, stampSenderId, writeLeaveFrame } from '../protocol/frame.ts';
import { emptyTransportStats, type FrameTransport, type TransportEvents, type TransportState, type TransportStats } from './transport.ts';

/** The subset of BroadcastChannel this transport uses (injectable for Node tests). */
export interface BroadcastChannelLike {
  postMessage(message: unknown): void;
  close(): void;
  onmessage: ((event: MessageEvent) => void) | null;
}

export interface BroadcastTransportOptions {
  /** Channel name; pages on the same origin using the same name see each other. */
  channel: string;
  /** Sender id for this page. Default: a random non-zero 32-bit id. */
  selfId?: number;
  /** BroadcastChannel factory. Default: the global BroadcastChannel. */
  createChannel?: (name: string) => BroadcastChannelLike;
}

/** Channel names are prefixed so Cairn's frames never mix with another app's messages. */
export const BROADCAST_PREFIX = 'cairn-avatar:';

function randomId(): number {
  const bytes = new Uint32Array(1);
  do crypto.getRandomValues(bytes);
  while (bytes[0] === 0);
  return bytes[0]!;
}

/**
 * Frames between tabs of one browser over a BroadcastChannel: no server, same frames, same
 * cadence as the relay (the publisher decides when to send, not the transport). With no relay to
 * stamp ids, each page picks a random id and stamps its own frames; pages of one origin trust
 * each other. Always `open`. On dispose it posts a leave frame so the others drop this avatar at
 * once instead of after the silence timeout.
 */
export class BroadcastTransport implements FrameTransport {
  readonly kind = 'broadcast' as const;
  readonly target: string;
  readonly selfId: number;
  readonly stats: TransportStats = emptyTransportStats();
  readonly events = new Emitter<TransportEvents>();
  state: TransportState = 'open';
  /** Pages of one origin trust each other: there is no server to sign an avatar. */
  readonly avatarToken = null;
  private readonly channel: BroadcastChannelLike;

  constructor(options: BroadcastTransportOptions) {
    this.target = options.channel;
    this.selfId = options.selfId ?? randomId();
    const create = options.createChannel ?? ((name: string) => new BroadcastChannel(name) as BroadcastChannelLike);
    this.channel = create(BROADCAST_PREFIX + options.channel);
    this.channel.onmessage = (event) => {
      const data: unknown = event.data;
      if (!(data instanceof Uint8Array) && !(data instanceof ArrayBuffer)) {
        this.stats.rejected++;
        this.stats.lastRejection = `channel message of type ${data === null ? 'null' : typeof data}, not bytes`;
        this.events.emit('rejected', this.stats.lastRejection);
        return;
      }
      this.stats.messages++;
      this.events.emit('message', data instanceof Uint8Array ? data : new Uint8Array(data));
    };
  }

  send(frame: Uint8Array): boolean {
    if (this.state !== 'open' || frame.length !== FRAME_BYTES) {
      this.stats.unsent++;
      return false;
    }
    // A copy: structured clone would copy anyway, and the caller reuses its buffer.
    const copy = frame.slice();
    stampSenderId(copy, 0, this.selfId);
    this.channel.postMessage(copy);
    this.stats.sent++;
    return true;
  }

  dispose(): void {
    if (this.state === 'closed') return;
    const leave = new Uint8Array(FRAME_BYTES);
    writeLeaveFrame(leave, 0, this.selfId);
    try {
      this.channel.postMessage(leave);
    } catch {
      // channel already closed
    }
    this.channel.close();
    this.state = 'closed';
    this.events.emit('state', 'closed');
    this.events.clear();
  }
}

import { withDefaults } from '../../core/options.ts';
import { Emitter } from '../../core/emitter.ts';
import { parseServerControl } from '../protocol/control.ts';
import { FRAME_BYTES, readSenderId, stampSenderId, writeLeaveFrame } from '../protocol/frame.ts';
import { checkProfile, packProfiles, type Profile } from '../protocol/profile.ts';
import { emptyTransportStats, type FrameTransport, type TransportEvents, type TransportState, type TransportStats } from './transport.ts';

/** The subset of BroadcastChannel this transport uses (injectable for Node tests). */
export interface BroadcastChannelLike {
  /** Posts a message to the other pages on the channel. */
  postMessage(message: unknown): void;
  /** Closes the channel. */
  close(): void;
  /** Called with every message another page posts. */
  onmessage: ((event: MessageEvent) => void) | null;
}

/** Options of a {@link BroadcastTransport}. */
export interface BroadcastTransportOptions {
  /** Channel name; pages on the same origin using the same name see each other. */
  channel: string;
  /** Sender id for this page. Default: a random non-zero 32-bit id. */
  selfId?: number;
  /** BroadcastChannel factory. Default: the global BroadcastChannel. */
  createChannel?: (name: string) => BroadcastChannelLike;
}

/** Defaults of a {@link BroadcastTransport}: a random non-zero id, the global BroadcastChannel. */
function broadcastTransportDefaults(): Required<Omit<BroadcastTransportOptions, 'channel'>> {
  return { selfId: randomId(), createChannel: (name) => new BroadcastChannel(name) as BroadcastChannelLike };
}

/** A page that hears a new sender posts its profile again at most this often (ms), so newcomers learn it. */
const PROFILE_REPEAT_MS = 500;
/** Most sender ids remembered (a page that hears more posts its profile again for the ones it forgot). */
const MAX_SEEN = 1024;

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
 * once instead of after the silence timeout. A profile ({@link setProfile}) goes out as a
 * `profiles` text for this page's id when set and again whenever a page it has not heard before
 * sends a frame (there is no relay to greet newcomers); texts from the others are checked by the
 * same rules as the relay's and come out as `control` events.
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
  private profileText: string | null = null;
  private readonly seen = new Set<number>();
  private repeatTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(options: BroadcastTransportOptions) {
    this.target = options.channel;
    const { selfId, createChannel } = withDefaults(broadcastTransportDefaults(), options);
    this.selfId = selfId;
    this.channel = createChannel(BROADCAST_PREFIX + options.channel);
    this.channel.onmessage = (event) => {
      const data: unknown = event.data;
      if (typeof data === 'string') return this.onText(data);
      if (!(data instanceof Uint8Array) && !(data instanceof ArrayBuffer)) {
        this.stats.rejected++;
        this.stats.lastRejection = `channel message of type ${data === null ? 'null' : typeof data}, not bytes`;
        this.events.emit('rejected', this.stats.lastRejection);
        return;
      }
      this.stats.messages++;
      const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
      if (bytes.length >= FRAME_BYTES) this.heard(readSenderId(bytes, 0));
      this.events.emit('message', bytes);
    };
  }

  /** Posts this page's profile to the other tabs (and again to each newcomer); null stops. Throws a RangeError on a profile the checks refuse. */
  setProfile(profile: Profile | null): void {
    if (profile) {
      const checked = checkProfile(profile);
      if (!checked.ok) throw new RangeError(`setProfile: ${checked.problem}`);
      this.profileText = packProfiles([{ id: this.selfId, ...checked.value }])[0]!;
    } else this.profileText = null;
    this.postProfile();
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

  private heard(id: number): void {
    if (this.seen.has(id)) return;
    if (this.seen.size >= MAX_SEEN) this.seen.clear();
    this.seen.add(id);
    if (this.profileText === null || this.repeatTimer !== null) return;
    this.repeatTimer = setTimeout(() => {
      this.repeatTimer = null;
      this.postProfile();
    }, PROFILE_REPEAT_MS);
  }

  private postProfile(): void {
    if (this.profileText === null || this.state !== 'open') return;
    this.channel.postMessage(this.profileText);
  }

  private onText(text: string): void {
    const parsed = parseServerControl(text);
    if (!parsed.ok || parsed.value.type !== 'profiles') {
      this.stats.rejected++;
      this.stats.lastRejection = parsed.ok ? `channel text of type ${parsed.value.type}` : parsed.problem;
      this.events.emit('rejected', this.stats.lastRejection);
      return;
    }
    this.stats.controls++;
    for (const peer of parsed.value.peers) this.heard(peer.id);
    this.events.emit('control', parsed.value);
  }

  dispose(): void {
    if (this.state === 'closed') return;
    if (this.repeatTimer !== null) clearTimeout(this.repeatTimer);
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

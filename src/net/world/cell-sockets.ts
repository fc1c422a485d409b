import { withDefaults } from '../../core/options.ts';
import type { BackoffOptions } from '../../core/backoff.ts';
import { Emitter } from '../../core/emitter.ts';
import type { ServerControl } from '../protocol/control.ts';
import type { Profile } from '../protocol/profile.ts';
import { cellRoom, distanceToCell, type Cell, type CellAck, type CellRole } from '../protocol/world.ts';
import type { TransportState } from '../transport/transport.ts';
import { WebSocketTransport, type WebSocketConstructor } from '../transport/websocket-transport.ts';
import { wantsCloseWatch } from './close-watch.ts';

/** One world cell's socket. */
export interface CellSocket {
  /** The cell. */
  readonly cell: Cell;
  /** `world:cell:X:Z`. */
  readonly key: string;
  /** The socket's transport: frames, controls, reconnects. */
  readonly transport: WebSocketTransport;
  /** Role acknowledged by the cell (null until its ack, and again after a drop). */
  role: CellRole | null;
  /** Whether this socket asked its cell for every tick (`pace` close); a new connection starts paced. */
  close: boolean;
}

/** Options of {@link CellSockets}. */
export interface CellSocketsOptions {
  /** ws(s) origin of the Worker (its /rooms/avatar/world:cell:X:Z). */
  wsOrigin: string;
  /** Reconnect delays of each cell socket. Default: the socket's own (500 ms doubling to 15 s). */
  backoff?: BackoffOptions;
  /** WebSocket implementation (Node: `ws`). Default the global one. */
  WebSocket?: WebSocketConstructor;
  /** Session token sent as `?session=` on every cell socket (see {@link WorldTransportOptions.session}). Default none. */
  session?: string | null;
}

/** Defaults of {@link CellSockets}: no session token; backoff and WebSocket are each socket's own defaults. */
const CELL_SOCKETS_DEFAULTS: Required<Pick<CellSocketsOptions, 'session'>> = { session: null };

/** What {@link CellSockets} emits. */
export type CellSocketsEvents = {
  /** A relay message from any cell. */
  message: Uint8Array;
  /** Something a cell socket rejected, and why. */
  rejected: string;
  /** A control message from a cell ({@link CellAck}s come as `ack` instead). */
  control: {
    /** The socket it came on. */
    socket: CellSocket;
    /** The message. */
    control: ServerControl;
  };
  /** A cell acknowledged a role. */
  ack: {
    /** The socket acknowledged. */
    socket: CellSocket;
    /** The cell's acknowledgement. */
    ack: CellAck;
  };
  /** A cell socket changed state. */
  state: {
    /** The socket. */
    socket: CellSocket;
    /** Its new state. */
    state: TransportState;
  };
};

/**
 * The open cell sockets of a world client, one {@link WebSocketTransport} per cell, keyed by cell
 * room: opens and closes them, points their reconnects at a fresh token, merges their messages
 * into one stream, and asks the neighbouring cells the player stands close to for every tick
 * (`pace`). Knows nothing about hops or identities: {@link WorldTransport} decides which cells to hold.
 */
export class CellSockets {
  /** What the sockets emit, merged: messages, rejections, controls, acks, state changes. */
  readonly events = new Emitter<CellSocketsEvents>();
  private readonly sockets = new Map<string, CellSocket & { offs: Array<() => void> }>();
  /** This player's profile, given to every cell socket (each sends it after its welcome). */
  private profile: Profile | null = null;

  private readonly options: CellSocketsOptions;

  constructor(options: CellSocketsOptions) {
    this.options = { ...options, ...withDefaults(CELL_SOCKETS_DEFAULTS, options) };
  }

  /** Cell sockets open now. */
  get size(): number {
    return this.sockets.size;
  }

  /** The socket of `cell`, if open. */
  get(cell: Cell): CellSocket | undefined {
    return this.sockets.get(cellRoom(cell));
  }

  /** Whether a socket for `cell` is open. */
  has(cell: Cell): boolean {
    return this.sockets.has(cellRoom(cell));
  }

  /** Every open cell socket. */
  values(): IterableIterator<CellSocket> {
    return this.sockets.values();
  }

  /** The URL a cell socket connects with: role, token and session in the query. */
  url(cell: Cell, role: CellRole, token: string | null): string {
    const session = this.options.session ? `&session=${encodeURIComponent(this.options.session)}` : '';
    return `${this.options.wsOrigin}/rooms/avatar/${encodeURIComponent(cellRoom(cell))}?role=${role}&token=${token}${session}`;
  }

  /** Opens a socket to `cell` (nothing if one is open). */
  open(cell: Cell, role: CellRole, token: string | null): void {
    const key = cellRoom(cell);
    if (this.sockets.has(key)) return;
    const transport = new WebSocketTransport({
      url: this.url(cell, role, token),
      backoff: this.options.backoff,
      WebSocket: this.options.WebSocket,
    });
    transport.setProfile(this.profile);
    const socket: CellSocket & { offs: Array<() => void> } = { cell, key, transport, role: null, close: false, offs: [] };
    this.sockets.set(key, socket);
    socket.offs.push(
      transport.events.on('message', (bytes) => this.events.emit('message', bytes)),
      transport.events.on('control', (control) => {
        const ack = cellAckOf(control);
        if (ack) {
          socket.role = ack.role;
          this.events.emit('ack', { socket, ack });
        } else this.events.emit('control', { socket, control });
      }),
      transport.events.on('rejected', (reason) => this.events.emit('rejected', reason)),
      transport.events.on('state', (state) => {
        if (state !== 'open') {
          socket.role = null;
          socket.close = false; // the next connection starts paced
        }
        this.events.emit('state', { socket, state });
      }),
    );
  }

  /** Closes the socket to the cell with this room key. */
  close(key: string): void {
    const socket = this.sockets.get(key);
    if (!socket) return;
    for (const off of socket.offs) off();
    socket.transport.dispose();
    this.sockets.delete(key);
  }

  /** Closes every socket whose key `keep` rejects. */
  closeExcept(keep: (key: string) => boolean): void {
    for (const key of [...this.sockets.keys()]) if (!keep(key)) this.close(key);
  }

  /** Points every socket's next reconnect at a fresh token (the publication cell as `pub`). */
  retarget(token: string, publication: Cell): void {
    for (const socket of this.sockets.values()) {
      const pub = socket.cell.x === publication.x && socket.cell.z === publication.z;
      socket.transport.setUrl(this.url(socket.cell, pub ? 'pub' : 'sub', token));
    }
  }

  /**
   * Publishes this player's profile to every cell it holds a socket in, and to every cell it opens
   * later: the cell it publishes in shows it to the cells around; one it watches keeps it for the
   * moment the player hops there.
   */
  setProfile(profile: Profile | null): void {
    this.profile = profile;
    for (const socket of this.sockets.values()) socket.transport.setProfile(profile);
  }

  /** Sends a command to every open socket. */
  broadcast(text: string): void {
    for (const socket of this.sockets.values()) socket.transport.sendText(text);
  }

  /**
   * Asks each neighbouring cell for every tick while (x, z) is within the live-detail radius of it,
   * and for the paced rate again once well beyond (see `wantsCloseWatch`, close-watch.ts). Returns how many
   * sockets are close-watching.
   */
  pace(x: number, z: number): number {
    let close = 0;
    for (const socket of this.sockets.values()) {
      if (socket.role !== 'sub') continue;
      const want = wantsCloseWatch(socket.close, distanceToCell(x, z, socket.cell));
      if (want !== socket.close && socket.transport.sendText(JSON.stringify({ type: 'pace', close: want }))) socket.close = want;
      if (socket.close) close++;
    }
    return close;
  }

  /** Reconnects over every socket. */
  get reconnects(): number {
    let reconnects = 0;
    for (const socket of this.sockets.values()) reconnects += socket.transport.stats.reconnects;
    return reconnects;
  }

  /** Closes every socket. */
  dispose(): void {
    for (const key of [...this.sockets.keys()]) this.close(key);
    this.events.clear();
  }
}

/** A cell's acknowledgement (the control message is already checked against its schema), or null. */
export function cellAckOf(control: ServerControl): CellAck | null {
  return control.type === 'cell' ? control : null;
}

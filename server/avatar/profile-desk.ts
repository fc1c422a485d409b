import { packProfiles, readProfileCommand, type PeerProfile, type Profile } from '../../src/net/protocol/profile.ts';
import type { CellRefusal } from '../../src/net/protocol/world.ts';
import { send, sendJson } from '../send.ts';

/**
 * Profiles (display name and look, src/net/protocol/profile.ts) in an avatar relay: a room or a
 * world cell. A client sends its profile as text once per join and per change; the desk checks it
 * by the protocol's rules (refusing with the reason, never forwarding an altered name), charges it
 * to the client's `profile` budget (per client, not per socket: a flood of changes is dropped
 * while honest clients' changes go through), keeps it in the socket's attachment (so it survives
 * hibernation and a late joiner gets it), and tells every other socket. A socket that joins gets
 * every shown profile at once, packed into a few messages.
 *
 * Who is shown: in a plain room every socket; in a world cell only its publishers (a watcher from
 * next door is shown by the cell it publishes in), and a watcher's stored profile is announced the
 * moment it starts publishing here (a hop).
 */

export { PROFILE_LIMITS } from './profile-limits.ts';

/** What a relay socket carries for the desk (an `AvatarPeer` has these fields). */
export interface ProfiledPeer {
  id: number;
  /** The socket's profile, once it sent one that passed. */
  profile?: Profile;
}

/** A relay's socket as the desk sees it. */
export interface ProfiledMember<P extends ProfiledPeer = ProfiledPeer> {
  ws: WebSocket;
  peer: P;
}

/** What the desk needs of its relay. */
export interface ProfileHost<M extends ProfiledMember> {
  /** Every socket in the room or cell. */
  members(): Iterable<M>;
  /** Takes one profile change from the member's client budget; false when it is spent. */
  take(member: M, now: number): boolean;
  /** Stores the member's profile in its attachment. */
  store(member: M, profile: Profile): void;
  /** Counts an over-budget profile as dropped for `rate` and tells the sender (at most once a second). */
  overBudget(member: M): void;
  /** Whether the member's profile is shown to the others (a world cell: its publishers only). */
  shown(member: M): boolean;
}

/** The desk's figures (`GET /api/rooms/avatar/:room` → `profiles`). */
export interface ProfileDeskStats {
  /** Profiles accepted (stored and announced, or unchanged). */
  accepted: number;
  /** Profiles refused by the checks (the sender got the reason). */
  refused: number;
  /** Profiles dropped over the client's budget. */
  overBudget: number;
  /** `profiles` messages sent: announcements and greetings, one per recipient. */
  sent: number;
  /** Bytes of those messages. */
  sentBytes: number;
}

const encoder = new TextEncoder();
const utf8Bytes = (text: string): number => encoder.encode(text).length;

export class ProfileDesk<M extends ProfiledMember> {
  readonly stats: ProfileDeskStats = { accepted: 0, refused: 0, overBudget: 0, sent: 0, sentBytes: 0 };
  private readonly host: ProfileHost<M>;

  constructor(host: ProfileHost<M>) {
    this.host = host;
  }

  /**
   * Handles a member's text when it is a profile command; false when it is not one (the relay
   * deals with it as before). The budget is charged before anything is checked, so refused
   * profiles cost their sender as much as accepted ones.
   */
  receive(member: M, text: string, now: number): boolean {
    const read = readProfileCommand(text);
    if (read === null) return false;
    if (!this.host.take(member, now)) {
      this.stats.overBudget++;
      this.host.overBudget(member);
      return true;
    }
    if (!read.ok) {
      this.stats.refused++;
      sendJson(member.ws, { type: 'refused', command: 'profile', reason: read.problem } satisfies CellRefusal);
      return true;
    }
    this.stats.accepted++;
    const profile = read.value;
    const old = member.peer.profile;
    if (old && JSON.stringify(old) === JSON.stringify(profile)) return true;
    this.host.store(member, profile);
    if (this.host.shown(member)) this.announce(member);
    return true;
  }

  /** Sends a member that just joined every shown profile but its own. */
  greet(member: M): void {
    const peers: PeerProfile[] = [];
    for (const other of this.host.members()) {
      const profile = other.peer.profile;
      if (other === member || !profile || other.peer.id === member.peer.id || !this.host.shown(other)) continue;
      peers.push({ id: other.peer.id, ...profile });
    }
    for (const text of packProfiles(peers)) this.sendText(member.ws, text);
  }

  /** Tells every other socket the member's profile (after a change, or when it starts being shown). */
  announce(member: M): void {
    const profile = member.peer.profile;
    if (!profile) return;
    const [text] = packProfiles([{ id: member.peer.id, ...profile }]);
    const bytes = utf8Bytes(text!);
    for (const other of this.host.members())
      if (other !== member && other.peer.id !== member.peer.id) this.sendText(other.ws, text!, bytes);
  }

  private sendText(ws: WebSocket, text: string, bytes = utf8Bytes(text)): void {
    if (!send(ws, text)) return;
    this.stats.sent++;
    this.stats.sentBytes += bytes;
  }
}

import type { AvatarMessage } from './protocol/signaling.ts';

/**
 * What this page has told the voice room about its avatar: the id and the signed token that
 * proves it (issued by the relay room or world cell the avatar lives in). {@link next} says which
 * claim to send now, if any: a claim goes out when the id or the token changed since the last one
 * the room took, and again after every welcome (a new socket starts with no avatar). Pure.
 */
export class AvatarClaim {
  /** The last claim sent, or null when the room has none of ours (start, after a welcome). */
  private sent: { id: number | null; token: string | null } | null = null;

  /** The claim to send for avatar `id` with `token`, or null when the room already has exactly it. */
  next(id: number | null, token: string | null): AvatarMessage | null {
    const proof = id === null ? null : token;
    if (this.sent && this.sent.id === id && this.sent.token === proof) return null;
    return proof === null ? { type: 'avatar', id } : { type: 'avatar', id, token: proof };
  }

  /** The claim went out (signaling took it). */
  sentClaim(claim: AvatarMessage): void {
    this.sent = { id: claim.id, token: claim.token ?? null };
  }

  /** A new socket (welcome): the room knows nothing of ours. */
  reset(): void {
    this.sent = null;
  }
}

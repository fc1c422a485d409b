import { describe, expect, it } from 'vitest';
import { AvatarClaim } from '../../../src/voice/avatar-claim.ts';

describe('AvatarClaim (voice avatar proof, client side)', () => {
  it('sends the id with its token, nothing while both stay, again when either changes or after a welcome', () => {
    const claim = new AvatarClaim();
    const send = (id: number | null, token: string | null) => {
      const message = claim.next(id, token);
      if (message) claim.sentClaim(message);
      return message;
    };
    // Avatar sync has an id but its welcome's token has not arrived: a bare claim (an older room takes it).
    expect(send(7, null)).toEqual({ type: 'avatar', id: 7 });
    expect(send(7, null)).toBeNull();
    // The token arrives: the claim goes again, with its proof.
    expect(send(7, 'tok-7')).toEqual({ type: 'avatar', id: 7, token: 'tok-7' });
    expect(send(7, 'tok-7')).toBeNull();
    // A reconnect of avatar sync: new id, new token.
    expect(send(9, 'tok-9')).toEqual({ type: 'avatar', id: 9, token: 'tok-9' });
    // A fresher token for the same id (a world cell's renewal) is sent too.
    expect(send(9, 'tok-9b')).toEqual({ type: 'avatar', id: 9, token: 'tok-9b' });
    // Withdrawing the avatar carries no token.
    expect(send(null, 'tok-9b')).toEqual({ type: 'avatar', id: null });
    expect(send(null, null)).toBeNull();
    // A new voice socket knows nothing of ours: the same claim goes again.
    send(9, 'tok-9b');
    claim.reset();
    expect(send(9, 'tok-9b')).toEqual({ type: 'avatar', id: 9, token: 'tok-9b' });
  });

  it('remembers only claims that went out (signaling down: asked again next time)', () => {
    const claim = new AvatarClaim();
    expect(claim.next(3, 't')).not.toBeNull(); // not sent: signaling was down
    expect(claim.next(3, 't')).toEqual({ type: 'avatar', id: 3, token: 't' });
  });
});

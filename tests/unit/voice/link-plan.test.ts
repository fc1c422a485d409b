import { describe, expect, it } from 'vitest';
import { planLinks, wantedPeers, type LinkPlanInput } from '../../../src/voice/link-plan.ts';
import { isOfferer } from '../../../src/voice/negotiation-roles.ts';

function input(partial: Partial<LinkPlanInput>): LinkPlanInput {
  return { localId: 5, roster: new Map(), hearing: new Set(), linked: [], held: [], declined: [], ...partial };
}

describe('wantedPeers', () => {
  it('wants roster peers whose avatar is in hearing range, never itself or peers without an avatar', () => {
    const roster = new Map<number, number | null>([
      [5, 105], // us
      [7, 107],
      [9, 109],
      [11, null],
    ]);
    expect([...wantedPeers(5, roster, new Set([105, 107, 999]))]).toEqual([7]);
    expect([...wantedPeers(5, roster, new Set())]).toEqual([]);
    expect([...wantedPeers(null, roster, new Set([107, 109]))]).toEqual([]);
  });
});

describe('planLinks', () => {
  // Ids compare as strings: "10" < "5" < "7", so 5 offers to 7 and 9, and answers 10.
  const roster = new Map<number, number | null>([
    [7, 107],
    [9, 109],
    [10, 110],
  ]);

  it('offers only to peers it is the offerer for; answers the others only when their offer waits', () => {
    expect(isOfferer(5, 7) && isOfferer(5, 9) && !isOfferer(5, 10)).toBe(true);
    const plan = planLinks(input({ roster, hearing: new Set([107, 109, 110]) }));
    expect(plan).toEqual({ offer: [7, 9], answer: [], close: [], dropHeld: [], forgive: [] });
    expect(planLinks(input({ roster, hearing: new Set([110]), held: [10] })).answer).toEqual([10]);
  });

  it('closes links that left hearing range or the roster, and keeps the rest', () => {
    const plan = planLinks(input({ roster, hearing: new Set([107]), linked: [7, 9, 42] }));
    expect(plan.close).toEqual([9, 42]);
    expect(plan.offer).toEqual([]);
  });

  it('a peer in hearing before its roster entry (avatar) arrives is linked when it arrives', () => {
    const hearing = new Set([107]);
    const early = new Map<number, number | null>([[7, null]]);
    expect(planLinks(input({ roster: early, hearing })).offer).toEqual([]);
    expect(planLinks(input({ roster: new Map([[7, 107]]), hearing })).offer).toEqual([7]);
  });

  it('keeps holding an offer from a roster peer out of range, and drops it when the peer leaves the room', () => {
    expect(planLinks(input({ roster, hearing: new Set(), held: [10] }))).toMatchObject({ answer: [], dropHeld: [] });
    expect(planLinks(input({ roster: new Map(), hearing: new Set([110]), held: [10] }))).toMatchObject({ answer: [], dropHeld: [10] });
  });

  it('does not re-offer a peer that said bye while it is still in range; forgives it once it left', () => {
    expect(planLinks(input({ roster, hearing: new Set([107]), declined: [7] }))).toMatchObject({ offer: [], forgive: [] });
    expect(planLinks(input({ roster, hearing: new Set(), declined: [7] }))).toMatchObject({ offer: [], forgive: [7] });
  });

  it('opens nothing before the welcome (no local id) and closes what is left', () => {
    expect(planLinks(input({ localId: null, roster, hearing: new Set([107, 110]), linked: [7] }))).toEqual({
      offer: [],
      answer: [],
      close: [7],
      dropHeld: [],
      forgive: [],
    });
  });
});

/**
 * Two peers playing the protocol against each other through planLinks, with messages delivered
 * in order (as the VoiceRoom does): whatever order their hearing sets change in, exactly one
 * offer per link, a link only while both hear each other, and no dial/hang-up loop.
 */
describe('two peers following hearing range', () => {
  interface Side {
    id: number;
    avatar: number;
    hearing: Set<number>;
    linked: Set<number>;
    held: Set<number>;
    declined: Set<number>;
    offers: number;
    byes: number;
  }
  const side = (id: number, avatar: number): Side => ({
    id,
    avatar,
    hearing: new Set(),
    linked: new Set(),
    held: new Set(),
    declined: new Set(),
    offers: 0,
    byes: 0,
  });
  type Message = { to: Side; from: Side; type: 'offer' | 'answer' | 'bye' };

  function run(a: Side, b: Side, steps: Array<(a: Side, b: Side) => void>): void {
    const queue: Message[] = [];
    const sync = (me: Side, other: Side): void => {
      const plan = planLinks({
        localId: me.id,
        roster: new Map([[other.id, other.avatar]]),
        hearing: me.hearing,
        linked: me.linked,
        held: me.held,
        declined: me.declined,
      });
      for (const id of plan.close) {
        me.linked.delete(id);
        me.byes++;
        queue.push({ from: me, to: other, type: 'bye' });
      }
      for (const id of plan.forgive) me.declined.delete(id);
      for (const id of plan.offer) {
        me.linked.add(id);
        me.offers++;
        queue.push({ from: me, to: other, type: 'offer' });
      }
      for (const id of plan.answer) {
        me.held.delete(id);
        me.linked.add(id);
        queue.push({ from: me, to: other, type: 'answer' });
      }
    };
    const deliver = (): void => {
      while (queue.length) {
        const m = queue.shift()!;
        const me = m.to;
        const other = m.from;
        if (m.type === 'bye') {
          me.held.delete(other.id);
          const had = me.linked.delete(other.id);
          if (had && me.hearing.has(other.avatar) && isOfferer(me.id, other.id)) me.declined.add(other.id);
        } else if (m.type === 'offer') {
          expect(isOfferer(me.id, other.id), 'only the offerer offers').toBe(false);
          if (me.hearing.has(other.avatar)) {
            me.linked.add(other.id);
            queue.push({ from: me, to: other, type: 'answer' });
          } else me.held.add(other.id);
        }
      }
    };
    for (const step of steps) {
      step(a, b);
      sync(a, b);
      sync(b, a);
      deliver();
    }
  }

  const both = (a: Side, b: Side): boolean => a.linked.has(b.id) && b.linked.has(a.id);

  it("one offer when they enter each other's range at different times, in either order", () => {
    for (const first of ['offerer', 'answerer'] as const) {
      const a = side(3, 103); // "3" < "8": a offers
      const b = side(8, 108);
      const [early, late] = first === 'offerer' ? [a, b] : [b, a];
      run(a, b, [() => early.hearing.add(late.avatar), () => undefined, () => late.hearing.add(early.avatar)]);
      expect(both(a, b)).toBe(true);
      expect(a.offers + b.offers).toBe(1);
      expect(b.offers).toBe(0);
    }
  });

  it('closes on both sides when one leaves range; no redial while the other still hears; a return links again', () => {
    const a = side(3, 103);
    const b = side(8, 108);
    run(a, b, [
      () => {
        a.hearing.add(108);
        b.hearing.add(103);
      },
    ]);
    expect(both(a, b)).toBe(true);
    // b (the answerer) hears a leave first: b hangs up, a hears the bye and does not redial.
    run(a, b, [() => b.hearing.delete(103), () => undefined, () => undefined]);
    expect(a.linked.size + b.linked.size).toBe(0);
    expect(a.offers).toBe(1);
    expect(a.declined.has(8)).toBe(true);
    // a's set catches up; later both hear each other again: one new offer.
    run(a, b, [() => a.hearing.delete(108), () => a.hearing.add(108), () => b.hearing.add(103)]);
    expect(both(a, b)).toBe(true);
    expect(a.offers).toBe(2);
    expect(b.offers).toBe(0);
  });

  it("an offerer whose range holds the other while the other's does not (its 8 places are full) waits without looping", () => {
    const a = side(3, 103);
    const b = side(8, 108);
    run(a, b, [() => a.hearing.add(108), () => undefined, () => undefined, () => undefined]);
    expect(a.offers).toBe(1);
    expect(b.held.has(3)).toBe(true);
    expect(b.linked.size).toBe(0);
    run(a, b, [() => b.hearing.add(103)]);
    expect(both(a, b)).toBe(true);
    expect(a.offers).toBe(1);
  });
});

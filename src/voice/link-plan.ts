import { isOfferer } from './negotiation-roles.ts';

/**
 * Which voice links to open and close when voice follows hearing range instead of connecting to
 * the whole room. Pure: the peer mesh (peer-mesh.ts) feeds it what it knows and carries out the
 * plan.
 *
 * A link exists only while **both** sides hear each other: each side's hearing set is capped
 * (the nearest 8) and computed from its own view of the avatars, so the two can disagree for a
 * moment (positions ~100 ms apart, hearing sampled 4× a second) or for good (one side's 8 places
 * are taken). So:
 * - the side that offers (negotiation-roles.ts: the lexicographically smaller id) offers when the
 *   peer enters its hearing — never both, so there is no glare;
 * - the answering side answers only once the offerer is in *its* hearing too; until then the
 *   offer waits ("held"), and is answered the moment the offerer enters (or the roster entry
 *   that maps the offerer to its avatar arrives);
 * - either side closes the link when the peer leaves its hearing, and says `bye`; the offerer
 *   that hears a bye while it still hears the peer does not offer again ("declined") until the
 *   peer has left its hearing and come back, so the two never dial and hang up in a loop.
 * The hysteresis itself (enter ≤ 24 m, leave > 32 m) lives in the hearing set the caller passes.
 */
export interface LinkPlanInput {
  /** Our peer id in the voice room (null before the welcome: nothing opens). */
  localId: number | null;
  /** Voice peers in the room → the avatar id each announced (null: none, never linked). */
  roster: ReadonlyMap<number, number | null>;
  /** Avatar ids within hearing range now. */
  hearing: ReadonlySet<number>;
  /** Peers we have a link with (in any state). */
  linked: Iterable<number>;
  /** Peers whose offer waits for them to enter our hearing. */
  held: Iterable<number>;
  /** Peers that said bye while we still heard them (we offer them again only after they left). */
  declined: Iterable<number>;
}

export interface LinkPlan {
  /** Make a link and offer (we are the offerer). */
  offer: number[];
  /** Make a link and answer the offer that was held. */
  answer: number[];
  /** Close the link and say bye (out of hearing, or no longer in the roster). */
  close: number[];
  /** Forget held offers from peers no longer in the roster. */
  dropHeld: number[];
  /** Forget that these declined: they left our hearing, so a return may be offered again. */
  forgive: number[];
}

/** The peers we want a link with: roster peers (not us) whose avatar is within hearing range. */
export function wantedPeers(localId: number | null, roster: ReadonlyMap<number, number | null>, hearing: ReadonlySet<number>): Set<number> {
  const wanted = new Set<number>();
  if (localId === null) return wanted;
  for (const [peer, avatar] of roster) {
    if (peer !== localId && avatar !== null && hearing.has(avatar)) wanted.add(peer);
  }
  return wanted;
}

/** What to do now, given who is in the room, who is in earshot and which links exist. */
export function planLinks(input: LinkPlanInput): LinkPlan {
  const wanted = wantedPeers(input.localId, input.roster, input.hearing);
  const linked = new Set(input.linked);
  const held = new Set(input.held);
  const declined = new Set(input.declined);
  const plan: LinkPlan = { offer: [], answer: [], close: [], dropHeld: [], forgive: [] };
  for (const peer of linked) if (!wanted.has(peer)) plan.close.push(peer);
  for (const peer of held) if (!input.roster.has(peer)) plan.dropHeld.push(peer);
  for (const peer of declined) if (!wanted.has(peer)) plan.forgive.push(peer);
  for (const peer of wanted) {
    if (linked.has(peer)) continue;
    if (isOfferer(input.localId!, peer)) {
      if (!declined.has(peer)) plan.offer.push(peer);
    } else if (held.has(peer)) plan.answer.push(peer);
    // else: the peer offers when it hears us; nothing to do until its offer arrives.
  }
  for (const list of [plan.offer, plan.answer, plan.close, plan.dropHeld, plan.forgive]) list.sort((a, b) => a - b);
  return plan;
}

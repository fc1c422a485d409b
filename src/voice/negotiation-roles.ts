/**
 * Who makes the offer between two peers: the one whose id is lexicographically smaller (ids
 * compared as decimal strings, so "10" < "9"). Both sides compute the same answer from the same two
 * ids, so exactly one offers and there is no glare to resolve — no full "perfect negotiation"
 * needed. The same peer also drives ICE restarts.
 */
export function isOfferer(localId: number, remoteId: number): boolean {
  if (localId === remoteId) throw new Error(`a peer cannot negotiate with itself (id ${localId})`);
  const a = String(localId);
  const b = String(remoteId);
  return a < b;
}

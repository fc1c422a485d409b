/**
 * Room names travel in URLs and become Durable Object names. One rule, shared by the Worker
 * (server/index.ts) and every client, so a page can explain a bad name before it ever connects.
 */
export const ROOM_NAME_RULE = /^[A-Za-z0-9_.:-]{1,64}$/;

/** Null when `name` is a valid room name, else a reason a person can act on. */
export function roomNameIssue(name: string): string | null {
  if (name.length === 0) return 'room name is empty';
  if (name.length > 64) return `room name is ${name.length} characters; at most 64 are allowed`;
  if (!ROOM_NAME_RULE.test(name)) return 'room name may only contain letters, digits and _ . : -';
  return null;
}

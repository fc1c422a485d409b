/**
 * Room names travel in URLs and become Durable Object names, so they are kept to a small, printable
 * alphabet. `:` is allowed so that derived names such as `world:cell:3:-2` stay readable.
 */
export const ROOM_NAME_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;

/** Returns null when the name is acceptable, otherwise a reason a person can act on. */
export function roomNameProblem(name: string): string | null {
  if (name.length === 0) return 'room name is empty';
  if (name.length > 64) return `room name is ${name.length} characters; at most 64 are allowed`;
  if (!ROOM_NAME_PATTERN.test(name)) {
    return 'room name may only contain letters, digits and _ . : -';
  }
  return null;
}

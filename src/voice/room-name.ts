/**
 * Room names as the Worker accepts them (mirrors server/room-name.ts, which a unit test checks):
 * 1–64 characters of letters, digits and _ . : -. Checked before connecting, so a bad `?room=`
 * gets a message a person can act on instead of a failed handshake.
 */
const ROOM_NAME = /^[A-Za-z0-9_.:-]{1,64}$/;

export function voiceRoomProblem(name: string): string | null {
  if (name.length === 0) return 'room name is empty';
  if (name.length > 64) return `room name is ${name.length} characters; at most 64 are allowed`;
  if (!ROOM_NAME.test(name)) return 'room name may only contain letters, digits and _ . : -';
  return null;
}

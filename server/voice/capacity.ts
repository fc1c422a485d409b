import { isWorldVoiceRoom } from '../../src/voice/protocol/signaling.ts';

/** Most peers in one voice room: a full mesh sends one Opus stream to every other peer. */
export const VOICE_ROOM_CAPACITY = 16;
/**
 * Most peers in a world voice room (`world`, `world:*`). There nobody connects to everyone:
 * each client links only to the ≤ 8 peers within hearing range, and positions are not relayed,
 * so the room's work per peer is its roster traffic (join, avatar, leave: one send to each other
 * peer) and the signaling of its own links — offer, answer (candidates inside) and bye, point to
 * point, not N². At 1,000 with everyone walking that is ~525 messages/s, half a Durable Object's
 * soft limit, and the welcome roster stays ~40 KB; docs/voice.md has the arithmetic.
 */
export const WORLD_VOICE_ROOM_CAPACITY = 1000;

/** A room's capacity by its name. */
export function voiceRoomCapacity(room: string): number {
  return isWorldVoiceRoom(room) ? WORLD_VOICE_ROOM_CAPACITY : VOICE_ROOM_CAPACITY;
}

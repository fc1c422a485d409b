import { HibernatingRoom } from './hibernating-room.ts';

/**
 * One room of voice signaling (roster, SDP/ICE routing, positions). The signaling logic is owned by
 * the voice module's issue; the foundation only accepts, tags and politely closes sockets.
 */
export class VoiceRoom extends HibernatingRoom {}

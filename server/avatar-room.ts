import { HibernatingRoom } from './hibernating-room.ts';

/**
 * One room of avatar sync. The relay (frame forwarding, id stamping, coalescing) is owned by the
 * net module's issue; the foundation only accepts, tags and politely closes sockets.
 */
export class AvatarRoom extends HibernatingRoom {}

/**
 * How remote players are drawn, kept behind a small interface so the renderer can change (a
 * SkinnedMesh per peer today; the crowd module's batched renderer later) without touching the
 * net code. It mirrors the crowd agent API: add → setTransform / play / remove.
 */
import type { PeerProfile } from '../protocol/profile.ts';

/** Level of detail a view may use for one avatar. */
export type AvatarDetail = 'live' | 'baked';

/** One remote avatar in a view. */
export interface RemoteAvatar {
  /** Places the avatar: metres, facing = atan2(wx, wz). */
  setTransform(x: number, y: number, z: number, facing: number): void;
  /** Requests a generic animation state; `speed` (m/s) scales locomotion playback. */
  play(state: string, speed: number): void;
  /** Hint: live skinning near the camera, baked animation far away. Views may ignore it. */
  setDetail?(detail: AvatarDetail): void;
  /**
   * The player's display name and look, once known and on every change (the relay sends them
   * once per join or change). Until then a view draws a look of its choosing (Cairn's views: a
   * humanoid variant seeded from the peer id).
   */
  setProfile?(profile: PeerProfile): void;
  /** Removes the avatar from the view. */
  remove(): void;
}

/** How remote players are drawn: a view makes one {@link RemoteAvatar} per peer and advances them every frame. */
export interface RemotePeerView {
  /** Creates the avatar of peer `id`. */
  add(id: number): RemoteAvatar;
  /** Advances animation by `dt` seconds (once per rendered frame). */
  update(dt: number): void;
  /** Avatars shown now. */
  readonly count: number;
  /** Removes every avatar and frees what the view owns. */
  dispose(): void;
}

declare module '../../world/services.ts' {
  interface WorldServices {
    /** How remote players are drawn (the crowd's renderer or one humanoid per peer). */
    netView: RemotePeerView;
  }
}

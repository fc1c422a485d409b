import { withDefaults } from '../../core/options.ts';
import { PROCEDURAL_CLIPS } from '../../rig/clips.ts';
import type { AvatarLook, PeerProfile } from '../protocol/profile.ts';
import type { RemoteAvatar, RemotePeerView } from './remote-peer-view.ts';

/** One remote avatar's update as the crowd module's `RemoteAvatars.update` takes it. */
export interface CrowdAvatarUpdate {
  /** East position of the feet (m). */
  x: number;
  /** Height of the feet (m). */
  y: number;
  /** South position of the feet (m). */
  z: number;
  /** Facing in radians, atan2(wx, wz). */
  facing: number;
  /** Clip name; omitted when unchanged. */
  clip?: string;
  /** Playback rate (1 = as authored). */
  speed?: number;
  /** Crossfade seconds when the clip changes. */
  fade?: number;
}

/**
 * What this view needs of the crowd: the shape of `src/crowd/remote-avatars.ts` `RemoteAvatars`
 * (published by the crowd world plugin as `cairn.crowdRemotes`). Kept structural so the net module
 * does not import the crowd module; the crowd does its own distance-based live/baked split.
 */
export interface CrowdRemotes {
  /** Applies one update; false when no crowd renderer is attached yet (the update is dropped). */
  update(id: number, state: CrowdAvatarUpdate): boolean;
  /** Removes a peer's avatar. */
  remove(id: number): void;
  /**
   * The character the peer chose (a humanoid variant, or a model file the crowd loads, drawing the
   * humanoid meanwhile). Before it is known the crowd draws a variant seeded from the id.
   */
  setLook?(id: number, look: AvatarLook): void;
}

/** Options of a {@link CrowdPeerView}. */
export interface CrowdPeerViewOptions {
  /** The crowd's remote-avatar registry (`cairn.crowdRemotes`). */
  remotes: CrowdRemotes;
  /**
   * Ground speed (m/s) each locomotion clip was authored at, to turn a peer's speed into a playback
   * rate. Default: the procedural mannequin's walk and run.
   */
  authoredSpeeds?: Record<string, number>;
  /** Net states the crowd template has no clip for, and what to play instead. Default swim → idle. */
  aliases?: Record<string, string>;
  /** Crossfade seconds on a clip change. Default 0.25 (as the humanoid view). */
  fade?: number;
}

/** Defaults of a {@link CrowdPeerView}: the procedural mannequin's walk and run speeds, swim drawn as idle, 0.25 s fades. */
const CROWD_PEER_VIEW_DEFAULTS: Required<Omit<CrowdPeerViewOptions, 'remotes'>> = {
  authoredSpeeds: { walk: PROCEDURAL_CLIPS.walk.speed, run: PROCEDURAL_CLIPS.run.speed },
  aliases: { swim: 'idle' },
  fade: 0.25,
};

/** A remote player drawn by the crowd: forwards poses, sends the clip until the crowd has taken it. */
class CrowdAvatar implements RemoteAvatar {
  private x = 0;
  private y = 0;
  private z = 0;
  private facing = 0;
  private clip = 'idle';
  private rate = 1;
  /** The clip still has to reach the crowd (not yet sent, or sent while no crowd was attached). */
  private clipPending = true;
  private removed = false;

  readonly id: number;
  private readonly view: CrowdPeerView;

  constructor(id: number, view: CrowdPeerView) {
    this.id = id;
    this.view = view;
  }

  setTransform(x: number, y: number, z: number, facing: number): void {
    this.x = x;
    this.y = y;
    this.z = z;
    this.facing = facing;
    this.push();
  }

  play(state: string, speed: number): void {
    const clip = this.view.aliases[state] ?? state;
    const authored = this.view.authoredSpeeds[clip] ?? 0;
    // Same floor as the mixer driver: a slow walk still moves its legs visibly.
    this.rate = authored > 0 ? Math.max(0.4, speed / authored) : 1;
    this.clip = clip;
    this.clipPending = true;
    this.push();
  }

  setProfile(profile: PeerProfile): void {
    if (!this.removed) this.view.remotes.setLook?.(this.id, profile.look);
  }

  remove(): void {
    if (this.removed) return;
    this.removed = true;
    this.view.forget(this);
  }

  private push(): void {
    if (this.removed) return;
    const update: CrowdAvatarUpdate = { x: this.x, y: this.y, z: this.z, facing: this.facing };
    if (this.clipPending) {
      update.clip = this.clip;
      update.speed = this.rate;
      update.fade = this.view.fade;
    }
    if (this.view.remotes.update(this.id, update)) this.clipPending = false;
    else this.view.dropped++;
  }
}

/**
 * Draws remote players through the crowd module's batched renderer (one instanced draw for all of
 * them, live skinning near the camera and baked animation far away, chosen by the crowd). The
 * net session calls `setTransform` every frame and `play` on a state change; both become one
 * `remotes.update(id, …)`. Until the crowd renderer exists, updates are dropped (counted in
 * {@link dropped}) and the clip is sent again with the next update, so a peer appears with the
 * right animation as soon as the crowd is attached.
 */
export class CrowdPeerView implements RemotePeerView {
  /** The crowd's remote-avatar registry the updates go to. */
  readonly remotes: CrowdRemotes;
  /** Ground speed (m/s) each locomotion clip was authored at. */
  readonly authoredSpeeds: Record<string, number>;
  /** Net states the crowd has no clip for, and what plays instead. */
  readonly aliases: Record<string, string>;
  /** Crossfade seconds on a clip change. */
  readonly fade: number;
  /** Updates the crowd refused because no renderer was attached yet. */
  dropped = 0;
  private readonly avatars = new Map<number, CrowdAvatar>();

  constructor(options: CrowdPeerViewOptions) {
    this.remotes = options.remotes;
    ({ authoredSpeeds: this.authoredSpeeds, aliases: this.aliases, fade: this.fade } = withDefaults(CROWD_PEER_VIEW_DEFAULTS, options));
  }

  get count(): number {
    return this.avatars.size;
  }

  /** Peer ids drawn now. */
  ids(): number[] {
    return [...this.avatars.keys()];
  }

  add(id: number): RemoteAvatar {
    this.avatars.get(id)?.remove();
    const avatar = new CrowdAvatar(id, this);
    this.avatars.set(id, avatar);
    return avatar;
  }

  /** The crowd advances its own animation in its frame hook. */
  update(): void {}

  /** @internal Called by an avatar's remove(). */
  forget(avatar: CrowdAvatar): void {
    if (this.avatars.get(avatar.id) === avatar) this.avatars.delete(avatar.id);
    this.remotes.remove(avatar.id);
  }

  /** Removes every avatar from the crowd. */
  dispose(): void {
    for (const avatar of [...this.avatars.values()]) avatar.remove();
  }
}

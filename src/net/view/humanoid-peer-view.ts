import { withDefaults } from '../../core/options.ts';
import type { Object3D } from 'three';
import { MixerAnimationDriver } from '../../anim/mixer-driver.ts';
import { createHumanoid, type Humanoid } from '../../rig/humanoid.ts';
import { humanoidVariantFromSeed, variantBuild, variantPalette, type HumanoidVariant } from '../../rig/humanoid-variants.ts';
import type { PeerProfile } from '../protocol/profile.ts';
import type { AvatarDetail, RemoteAvatar, RemotePeerView } from './remote-peer-view.ts';

/** Options of a {@link HumanoidPeerView}. */
export interface HumanoidPeerViewOptions {
  /** Where avatars are added (the scene). */
  parent: Object3D;
  /** Cast shadows. Default false: remote players are many, shadows cost a pass each. */
  castShadow?: boolean;
}

/** Defaults of a {@link HumanoidPeerView}: no shadows. */
const HUMANOID_PEER_VIEW_DEFAULTS: Required<Pick<HumanoidPeerViewOptions, 'castShadow'>> = { castShadow: false };

/** A remote avatar: a low-detail humanoid in the player's variant, driven by the anim module's state machine. */
class HumanoidAvatar implements RemoteAvatar {
  animation: MixerAnimationDriver;
  speed = 0;
  detail: AvatarDetail = 'live';
  /** The variant drawn (seeded from the id until the player's profile says otherwise). */
  variant: HumanoidVariant;
  /** Why the player's chosen look is not drawn (this view draws humanoids only), or null. */
  refused: string | null = null;
  private accumulated = 0;
  private state = 'idle';

  humanoid: Humanoid;
  readonly id: number;
  private readonly view: HumanoidPeerView;

  constructor(id: number, view: HumanoidPeerView) {
    this.id = id;
    this.view = view;
    this.variant = humanoidVariantFromSeed(id);
    this.humanoid = view.build(id, this.variant);
    this.animation = this.drive();
  }

  setTransform(x: number, y: number, z: number, facing: number): void {
    this.humanoid.object.position.set(x, y, z);
    this.humanoid.object.rotation.y = facing;
  }

  play(state: string, speed: number): void {
    // request() overwrites the pending name; update() applies only the last one.
    this.animation.request(state);
    this.state = state;
    this.speed = speed;
  }

  setProfile(profile: PeerProfile): void {
    const look = profile.look;
    if (look.kind !== 'humanoid') {
      this.refused = 'the one-by-one view draws humanoids only: use the crowd view for character files';
      return;
    }
    this.refused = null;
    const { kind: _kind, ...variant } = look;
    if (JSON.stringify(variant) === JSON.stringify(this.variant)) return;
    // A new body in the new colours and build, where the old one stood, playing what it played.
    const old = this.humanoid;
    this.variant = variant;
    this.humanoid = this.view.build(this.id, variant);
    this.humanoid.object.position.copy(old.object.position);
    this.humanoid.object.rotation.copy(old.object.rotation);
    this.animation.dispose();
    old.dispose();
    this.animation = this.drive();
    this.animation.request(this.state);
  }

  setDetail(detail: AvatarDetail): void {
    this.detail = detail;
  }

  /** Advances the mixer; far ('baked') avatars update at a quarter of the rate. */
  update(dt: number): void {
    this.accumulated += dt;
    if (this.detail === 'baked' && this.accumulated < 0.1) return;
    this.animation.update(this.accumulated, this.speed);
    this.accumulated = 0;
  }

  remove(): void {
    this.view.avatars.delete(this);
    this.animation.dispose();
    this.humanoid.dispose();
  }

  private drive(): MixerAnimationDriver {
    // The mannequin has no swim clip: treading water plays idle (as for the local player).
    return new MixerAnimationDriver(this.humanoid.object, this.humanoid.clips, {
      aliases: { swim: 'idle' },
      fades: { jump: 0.1, default: 0.25 },
      initial: 'idle',
    });
  }
}

/**
 * The simple remote-peer renderer: one low-detail procedural humanoid (three SkinnedMesh pieces)
 * and one {@link MixerAnimationDriver} per peer, in the humanoid variant the player chose (seeded
 * from its id until its profile arrives). Fine for tens of peers; the crowd module's batched
 * renderer takes over for hundreds, and draws character files too.
 */
export class HumanoidPeerView implements RemotePeerView {
  /** The avatars drawn now, one humanoid each. */
  readonly avatars = new Set<HumanoidAvatar>();
  private readonly parent: Object3D;
  private readonly castShadow: boolean;

  constructor(options: HumanoidPeerViewOptions) {
    this.parent = options.parent;
    this.castShadow = withDefaults(HUMANOID_PEER_VIEW_DEFAULTS, options).castShadow;
  }

  get count(): number {
    return this.avatars.size;
  }

  add(id: number): RemoteAvatar {
    const avatar = new HumanoidAvatar(id, this);
    this.avatars.add(avatar);
    return avatar;
  }

  /** @internal A humanoid in `variant` (its colours, and its build as the object's scale), in the scene. */
  build(id: number, variant: HumanoidVariant): Humanoid {
    const humanoid = createHumanoid({ detail: 'low', castShadow: this.castShadow, palette: variantPalette(variant) });
    const build = variantBuild(variant);
    humanoid.object.scale.set(build.width, build.height, build.width);
    humanoid.object.name = `remote-peer-${id}`;
    this.parent.add(humanoid.object);
    return humanoid;
  }

  update(dt: number): void {
    for (const avatar of this.avatars) avatar.update(dt);
  }

  /** Removes every avatar from the scene. */
  dispose(): void {
    for (const avatar of [...this.avatars]) avatar.remove();
  }
}

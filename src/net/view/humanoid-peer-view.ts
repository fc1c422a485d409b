import type { Object3D } from 'three';
import { MixerAnimationDriver } from '../../anim/mixer-driver.ts';
import { Mulberry32 } from '../../core/rng.ts';
import { createHumanoid, type Humanoid } from '../../rig/humanoid.ts';
import type { AvatarDetail, RemoteAvatar, RemotePeerView } from './remote-peer-view.ts';

export interface HumanoidPeerViewOptions {
  /** Where avatars are added (the scene). */
  parent: Object3D;
  /** Cast shadows. Default false: remote players are many, shadows cost a pass each. */
  castShadow?: boolean;
}

type Rgb = [number, number, number];
const SHIRTS: Rgb[] = [
  [0.62, 0.2, 0.18],
  [0.2, 0.45, 0.22],
  [0.55, 0.45, 0.15],
  [0.35, 0.25, 0.55],
  [0.15, 0.35, 0.6],
  [0.6, 0.35, 0.5],
];

/** A remote avatar: a low-detail humanoid driven by the anim module's state machine. */
class HumanoidAvatar implements RemoteAvatar {
  readonly animation: MixerAnimationDriver;
  speed = 0;
  detail: AvatarDetail = 'live';
  private accumulated = 0;

  readonly humanoid: Humanoid;
  private readonly onRemove: (avatar: HumanoidAvatar) => void;

  constructor(humanoid: Humanoid, onRemove: (avatar: HumanoidAvatar) => void) {
    this.humanoid = humanoid;
    this.onRemove = onRemove;
    // The mannequin has no swim clip: treading water plays idle (as for the local player).
    this.animation = new MixerAnimationDriver(humanoid.object, humanoid.clips, {
      aliases: { swim: 'idle' },
      fades: { jump: 0.1, default: 0.25 },
      initial: 'idle',
    });
  }

  setTransform(x: number, y: number, z: number, facing: number): void {
    this.humanoid.object.position.set(x, y, z);
    this.humanoid.object.rotation.y = facing;
  }

  play(state: string, speed: number): void {
    // request() overwrites the pending name; update() applies only the last one.
    this.animation.request(state);
    this.speed = speed;
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
    this.onRemove(this);
    this.animation.dispose();
    this.humanoid.dispose();
  }
}

/**
 * The simple remote-peer renderer: one low-detail procedural humanoid (three SkinnedMesh pieces)
 * and one {@link MixerAnimationDriver} per peer, each in a shirt colour picked from its id. Fine
 * for tens of peers; the crowd module's batched renderer takes over for hundreds.
 */
export class HumanoidPeerView implements RemotePeerView {
  readonly avatars = new Set<HumanoidAvatar>();
  private readonly parent: Object3D;
  private readonly castShadow: boolean;

  constructor(options: HumanoidPeerViewOptions) {
    this.parent = options.parent;
    this.castShadow = options.castShadow ?? false;
  }

  get count(): number {
    return this.avatars.size;
  }

  add(id: number): RemoteAvatar {
    const rng = new Mulberry32(id);
    const shirt = SHIRTS[rng.int(SHIRTS.length)]!;
    const humanoid = createHumanoid({ detail: 'low', castShadow: this.castShadow, palette: { shirt } });
    humanoid.object.name = `remote-peer-${id}`;
    this.parent.add(humanoid.object);
    const avatar = new HumanoidAvatar(humanoid, (gone) => this.avatars.delete(gone));
    this.avatars.add(avatar);
    return avatar;
  }

  update(dt: number): void {
    for (const avatar of this.avatars) avatar.update(dt);
  }

  dispose(): void {
    for (const avatar of [...this.avatars]) avatar.remove();
  }
}

import { withDefaults } from '../core/options.ts';
import { Mulberry32 } from '../core/rng.ts';

/** What a synthetic peer is doing (also the clip it plays). */
export type PeerActivity = 'walk' | 'idle' | 'dance';

/** One synthetic peer: where it is, what it does, where it walks to. */
export interface SyntheticPeer {
  /** East position of the feet (m). */
  x: number;
  /** Height of the feet (m), from the ground function. */
  y: number;
  /** South position of the feet (m). */
  z: number;
  /** Facing in radians; forward = (sin facing, 0, cos facing). */
  facing: number;
  /** What it is doing now. */
  activity: PeerActivity;
  /** Clip to play and its rate (walk playback matches ground speed). */
  clip: PeerActivity;
  /** Playback rate of the clip. */
  speed: number;
  /** Seconds left in the current activity. */
  timeLeft: number;
  /** East position of the waypoint it walks to (m). */
  targetX: number;
  /** South position of the waypoint it walks to (m). */
  targetZ: number;
  /** Start offset into the clip, so identical clips do not march in lockstep. */
  phase: number;
}

/** Options of {@link SyntheticPeers}. */
export interface SyntheticPeersOptions {
  /** Seed of the walk, idle and dance choices. Default 7. */
  seed?: number;
  /** Centre of the area (x, z). Default 0, 0. */
  centerX?: number;
  /** South centre of the area (m). Default 0. */
  centerZ?: number;
  /** Radius of the area, metres. Default 40. */
  radius?: number;
  /** Ground height at (x, z). Default flat at 0. */
  ground?: (x: number, z: number) => number;
  /** Where peers may stand (e.g. above water). Default everywhere. */
  walkable?: (x: number, z: number) => boolean;
  /** Walking speed, m/s. Default 1.45 (the mannequin walk clip's authored speed). */
  walkSpeed?: number;
  /** Share of peers that walk / dance at the start (the rest idle). Defaults 0.55 / 0.2. */
  walkShare?: number;
  /** Share of peers that dance at the start. Default 0.2. */
  danceShare?: number;
  /** When false peers stay where they are (they still animate). Default true. */
  moving?: boolean;
}

/** Defaults of {@link SyntheticPeersOptions}: seed 7, a 40 m disc at the origin on flat ground. */
export const SYNTHETIC_PEERS_DEFAULTS: Required<SyntheticPeersOptions> = {
  seed: 7,
  centerX: 0,
  centerZ: 0,
  radius: 40,
  ground: () => 0,
  walkable: () => true,
  walkSpeed: 1.45,
  walkShare: 0.55,
  danceShare: 0.2,
  moving: true,
};

/**
 * Synthetic peers for demos, tests and benchmarks: seeded characters that walk between random
 * waypoints, stand idle or dance, over any ground given as a height function. The same seed
 * gives the same crowd everywhere. Pure logic: no three.js, no DOM.
 */
export class SyntheticPeers {
  /** Every peer, in the order they were added. */
  readonly peers: SyntheticPeer[] = [];
  private readonly rng: Mulberry32;
  private readonly options: Required<SyntheticPeersOptions>;

  constructor(options: SyntheticPeersOptions = {}) {
    this.options = withDefaults(SYNTHETIC_PEERS_DEFAULTS, options);
    this.rng = new Mulberry32(this.options.seed);
  }

  /** When false the peers stay where they are (they still animate). */
  get moving(): boolean {
    return this.options.moving;
  }

  /** Stops (false) or resumes (true) the peers' walking. */
  set moving(value: boolean) {
    this.options.moving = value;
  }

  /** Grows or shrinks the population to `count` (new peers are appended, removals pop the last). */
  resize(count: number): void {
    if (!Number.isInteger(count) || count < 0) throw new RangeError(`SyntheticPeers: count must be a non-negative integer, got ${count}`);
    while (this.peers.length > count) this.peers.pop();
    while (this.peers.length < count) this.peers.push(this.spawn());
  }

  /** Advances every peer by `dt` seconds. */
  step(dt: number): void {
    const o = this.options;
    for (const peer of this.peers) {
      peer.timeLeft -= dt;
      if (peer.timeLeft <= 0) this.choose(peer);
      if (peer.activity !== 'walk' || !o.moving) continue;
      const dx = peer.targetX - peer.x;
      const dz = peer.targetZ - peer.z;
      const distance = Math.hypot(dx, dz);
      if (distance < 0.5) {
        this.pickTarget(peer);
        continue;
      }
      const stepLength = Math.min(distance, o.walkSpeed * dt);
      peer.x += (dx / distance) * stepLength;
      peer.z += (dz / distance) * stepLength;
      peer.facing = turnTowards(peer.facing, Math.atan2(dx, dz), 4 * dt);
      peer.y = o.ground(peer.x, peer.z);
    }
  }

  private spawn(): SyntheticPeer {
    const [x, z] = this.randomPoint();
    const peer: SyntheticPeer = {
      x,
      z,
      y: this.options.ground(x, z),
      facing: this.rng.range(-Math.PI, Math.PI),
      activity: 'idle',
      clip: 'idle',
      speed: 1,
      timeLeft: 0,
      targetX: x,
      targetZ: z,
      phase: this.rng.range(0, 4),
    };
    const roll = this.rng.next();
    this.setActivity(
      peer,
      roll < this.options.walkShare ? 'walk' : roll < this.options.walkShare + this.options.danceShare ? 'dance' : 'idle',
    );
    return peer;
  }

  private choose(peer: SyntheticPeer): void {
    const roll = this.rng.next();
    this.setActivity(peer, roll < 0.6 ? 'walk' : roll < 0.8 ? 'idle' : 'dance');
  }

  private setActivity(peer: SyntheticPeer, activity: PeerActivity): void {
    peer.activity = activity;
    peer.clip = activity;
    peer.speed = activity === 'dance' ? this.rng.range(0.9, 1.1) : 1;
    peer.timeLeft = activity === 'walk' ? this.rng.range(6, 16) : this.rng.range(3, 9);
    if (activity === 'walk') this.pickTarget(peer);
  }

  private pickTarget(peer: SyntheticPeer): void {
    const [x, z] = this.randomPoint();
    peer.targetX = x;
    peer.targetZ = z;
  }

  private randomPoint(): [number, number] {
    const o = this.options;
    for (let attempt = 0; attempt < 32; attempt++) {
      const angle = this.rng.range(0, Math.PI * 2);
      const r = o.radius * Math.sqrt(this.rng.next());
      const x = o.centerX + Math.sin(angle) * r;
      const z = o.centerZ + Math.cos(angle) * r;
      if (o.walkable(x, z)) return [x, z];
    }
    return [o.centerX, o.centerZ];
  }
}

/** Turns `from` towards `to` by at most `maxStep` radians, the short way round. */
export function turnTowards(from: number, to: number, maxStep: number): number {
  let delta = to - from;
  delta = Math.atan2(Math.sin(delta), Math.cos(delta));
  if (Math.abs(delta) <= maxStep) return to;
  return from + Math.sign(delta) * maxStep;
}

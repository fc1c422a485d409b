/**
 * Remote players in the crowd, for the net module: one call per received update, keyed by peer
 * id. The crowd may not exist yet when the first messages arrive (it is built after the world, or
 * rebuilt when the character model changes): until one is attached, updates are dropped and
 * counted — never dereferenced — and the next update after attaching creates the avatar.
 */
import type { AddAgentOptions, Crowd, CrowdAgent } from './crowd.ts';

/** What a network update says about one remote avatar. */
export interface RemoteAvatarUpdate {
  x: number;
  y: number;
  z: number;
  facing: number;
  /** Clip name; unchanged when omitted. */
  clip?: string;
  /** Playback rate. Default 1. */
  speed?: number;
  /** Crossfade seconds when the clip changes. Default 0.2. */
  fade?: number;
}

export class RemoteAvatars<Id = string> {
  private crowd: Crowd | null = null;
  private readonly agents = new Map<Id, CrowdAgent>();
  private readonly last = new Map<Id, RemoteAvatarUpdate>();
  /** Updates that arrived while no crowd was attached. */
  dropped = 0;

  /** True while a crowd is attached. */
  get attached(): boolean {
    return this.crowd !== null;
  }

  get count(): number {
    return this.agents.size;
  }

  /** The avatar for a peer, if it exists. */
  agent(id: Id): CrowdAgent | undefined {
    return this.agents.get(id);
  }

  /**
   * Applies one update. Returns false (and counts it in `dropped`) when no crowd is attached.
   */
  update(id: Id, state: RemoteAvatarUpdate): boolean {
    const crowd = this.crowd;
    if (!crowd) {
      this.dropped++;
      return false;
    }
    let agent = this.agents.get(id);
    if (!agent) {
      const options: AddAgentOptions = { x: state.x, y: state.y, z: state.z, facing: state.facing, clip: state.clip, speed: state.speed };
      agent = crowd.add(options);
      this.agents.set(id, agent);
    } else {
      agent.setTransform(state.x, state.y, state.z, state.facing);
      if (state.clip !== undefined) agent.play(state.clip, { fade: state.fade ?? 0.2, speed: state.speed ?? 1 });
    }
    const previous = this.last.get(id);
    this.last.set(id, { ...state, clip: state.clip ?? previous?.clip });
    return true;
  }

  /** Removes a peer's avatar (a peer that left). Unknown ids are ignored. */
  remove(id: Id): void {
    this.agents.get(id)?.remove();
    this.agents.delete(id);
    this.last.delete(id);
  }

  /** Attaches a crowd; peers known from before a detach are re-created at their last state. */
  attach(crowd: Crowd): void {
    this.detach();
    this.crowd = crowd;
    for (const [id, state] of this.last) {
      this.agents.set(id, crowd.add({ x: state.x, y: state.y, z: state.z, facing: state.facing, clip: state.clip, speed: state.speed }));
    }
  }

  /** Detaches (e.g. before the crowd is rebuilt); avatars are removed from the old crowd. */
  detach(): void {
    for (const agent of this.agents.values()) agent.remove();
    this.agents.clear();
    this.crowd = null;
  }
}

declare module '../world/services.ts' {
  interface WorldServices {
    /** The crowd's registry of remote avatars, keyed by net avatar id. */
    crowdRemotes: RemoteAvatars<number>;
  }
}

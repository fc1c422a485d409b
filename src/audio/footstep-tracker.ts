import { withDefaults } from '../core/options.ts';
import type { Surface } from './surfaces.ts';

/** The parts of the player's state footsteps depend on (the world's PlayerState has them). */
export interface MoverState {
  /** East position (m). */
  x: number;
  /** Height (m). */
  y: number;
  /** South position (m). */
  z: number;
  /** Vertical velocity, m/s (+ up). */
  vy: number;
  /** Horizontal speed, m/s. */
  speed: number;
  /** Standing on the ground. */
  grounded: boolean;
  /** What the player is doing. */
  state: 'idle' | 'walk' | 'run' | 'jump' | 'swim';
}

/** A movement sound to play: a footstep, a jump's take-off, or a landing. */
export type MovementSound =
  | {
      /** A step. */
      recipe: 'footstep';
      /** The ground stepped on. */
      surface: Surface;
      /** 1 walking, 1.3 running, 0.7 swimming. */
      intensity: number;
    }
  | {
      /** A jump's take-off. */
      recipe: 'jump';
      /** The ground left. */
      surface: Surface;
    }
  | {
      /** A landing. */
      recipe: 'land';
      /** The ground landed on. */
      surface: Surface;
      /** The speed of the fall (m/s). */
      impact: number;
    };

/** Options of a {@link FootstepTracker}. */
export interface FootstepTrackerOptions {
  /** Metres per step walking. Default 0.75. */
  walkStride?: number;
  /** Metres per step running. Default 1.3. */
  runStride?: number;
  /** Metres per stroke swimming. Default 1.1. */
  swimStroke?: number;
  /** A jump of more than this many metres in one update is a teleport: no steps for it. Default 5. */
  teleportDistance?: number;
}

/** Defaults of a {@link FootstepTracker}: strides of 0.75 m walking, 1.3 m running, strokes of 1.1 m, teleports over 5 m. */
const FOOTSTEP_TRACKER_DEFAULTS: Required<FootstepTrackerOptions> = {
  walkStride: 0.75,
  runStride: 1.3,
  swimStroke: 1.1,
  teleportDistance: 5,
};

/**
 * Turns the player's motion into footsteps, jumps and landings: a step every stride of ground
 * covered (shorter strides walking than running), a push-off when leaving the ground upwards, a
 * landing with the fall speed when touching down. Pure: feed it the state each frame.
 */
export class FootstepTracker {
  private readonly walkStride: number;
  private readonly runStride: number;
  private readonly swimStroke: number;
  private readonly teleport: number;
  private last: MoverState | null = null;
  private travelled = 0;
  private fallSpeed = 0;
  private takeoffSurface: Surface = 'grass';

  constructor(options: FootstepTrackerOptions = {}) {
    const resolved = withDefaults(FOOTSTEP_TRACKER_DEFAULTS, options);
    this.walkStride = resolved.walkStride;
    this.runStride = resolved.runStride;
    this.swimStroke = resolved.swimStroke;
    this.teleport = resolved.teleportDistance;
    this.travelled = this.walkStride * 0.6;
  }

  /** Sounds for the motion since the previous call; `surface` is the ground under the player now. */
  update(state: MoverState, surface: Surface): MovementSound[] {
    const previous = this.last;
    this.last = { ...state };
    if (!previous) return [];
    const sounds: MovementSound[] = [];
    const moved = Math.hypot(state.x - previous.x, state.z - previous.z);
    if (moved > this.teleport) {
      this.travelled = this.walkStride * 0.6;
      return sounds;
    }
    if (previous.grounded && !state.grounded && state.vy > 0) {
      this.takeoffSurface = surface;
      this.fallSpeed = 0;
      sounds.push({ recipe: 'jump', surface });
    }
    if (!state.grounded) this.fallSpeed = Math.max(this.fallSpeed, -state.vy);
    if (!previous.grounded && state.grounded) {
      sounds.push({ recipe: 'land', surface, impact: Math.max(this.fallSpeed, -previous.vy) });
      this.fallSpeed = 0;
      // The landing is the step; count the next stride from here.
      this.travelled = 0;
      return sounds;
    }
    if (!state.grounded) return sounds;

    if (state.state === 'idle') {
      // Ready to step soon after starting again.
      this.travelled = this.walkStride * 0.6;
      return sounds;
    }
    const swimming = state.state === 'swim';
    const stride = swimming ? this.swimStroke : state.state === 'run' ? this.runStride : this.walkStride;
    this.travelled += moved;
    if (this.travelled >= stride) {
      this.travelled %= stride;
      sounds.push(
        swimming
          ? { recipe: 'footstep', surface: 'water', intensity: 0.7 }
          : { recipe: 'footstep', surface, intensity: state.state === 'run' ? 1.3 : 1 },
      );
    }
    return sounds;
  }

  /** The surface the last jump started from. */
  get lastTakeoffSurface(): Surface {
    return this.takeoffSurface;
  }

  /** Forgets the last position and the fall: the first step after comes a little sooner than a full stride. */
  reset(): void {
    this.last = null;
    this.travelled = this.walkStride * 0.6;
    this.fallSpeed = 0;
  }
}

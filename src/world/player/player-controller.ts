import { clamp, dampAngle, facingFromDirection } from '../../core/math.ts';

/** What the player asks for this frame; values are −1..1 for the axes. */
export interface PlayerInput {
  /** +1 forward (W), −1 back (S). */
  forward: number;
  /** +1 right (D), −1 left (A). */
  right: number;
  /** Run (Shift) instead of walk. */
  run: boolean;
  /** Jump (Space) this frame; delivered once per press. */
  jump: boolean;
}

/** Anything that answers "how high is the ground here" (the terrain's Heightmap does). */
export interface Ground {
  /** Height of the ground (m) at (x, z). */
  sampleHeight(x: number, z: number): number;
  /** Height of the water surface (m); deeper water makes the player swim. */
  readonly waterLevel: number;
  /** Edge length of the square map (m), centred on the origin; the player stays inside it. */
  readonly worldSize: number;
}

/** What the player is doing, for the animation and the HUD. */
export type LocomotionState = 'idle' | 'walk' | 'run' | 'jump' | 'swim';

/** The local player's controller state, advanced by {@link stepPlayer}. */
export interface PlayerState {
  /** East position of the feet (m). */
  x: number;
  /** Height of the feet (m). */
  y: number;
  /** South position of the feet (m). */
  z: number;
  /** atan2(wx, wz): 0 faces +Z. */
  facing: number;
  /** East velocity (m/s). */
  vx: number;
  /** Vertical velocity (m/s), up positive. */
  vy: number;
  /** South velocity (m/s). */
  vz: number;
  /** Horizontal speed, m/s. */
  speed: number;
  /** Standing on the ground (not jumping, falling or swimming). */
  grounded: boolean;
  /** What the player is doing. */
  state: LocomotionState;
}

/** How the player moves ({@link DEFAULT_TUNING}). */
export interface PlayerTuning {
  /** Walking speed (m/s). */
  walkSpeed: number;
  /** Running speed (m/s, Shift). */
  runSpeed: number;
  /** How fast velocity approaches the target, 1/s. */
  acceleration: number;
  /** How fast facing turns towards the motion, 1/s. */
  turnRate: number;
  /** Upward speed at the start of a jump (m/s). */
  jumpSpeed: number;
  /** Downward acceleration (m/s²). */
  gravity: number;
  /** Depth of water (m) at which the player floats instead of walking the bottom. */
  swimDepth: number;
}

/** Cairn's tuning: walk 1.6 m/s, run 4.8 m/s, a 6.2 m/s jump under 20 m/s² (about 1 m high), swimming from 1.25 m of water. */
export const DEFAULT_TUNING: PlayerTuning = {
  walkSpeed: 1.6,
  runSpeed: 4.8,
  acceleration: 10,
  turnRate: 12,
  jumpSpeed: 6.2,
  gravity: 20,
  swimDepth: 1.25,
};

/** A player standing still on the ground at (x, z), facing north (π). */
export function createPlayerState(x: number, z: number, ground: Ground): PlayerState {
  return { x, y: ground.sampleHeight(x, z), z, facing: Math.PI, vx: 0, vy: 0, vz: 0, speed: 0, grounded: true, state: 'idle' };
}

/**
 * Third-person locomotion on a heightfield: moves relative to the camera's yaw, turns the body
 * towards the motion, jumps under gravity, floats in deep water and stays inside the map.
 * Pure (no three.js): the same code runs in the page and in Node tests.
 */
export function stepPlayer(
  state: PlayerState,
  input: PlayerInput,
  cameraYaw: number,
  ground: Ground,
  dt: number,
  tuning: PlayerTuning = DEFAULT_TUNING,
): PlayerState {
  // Camera-relative wish direction: forward = (sin yaw, cos yaw), right = forward × up = (−cos yaw, sin yaw).
  const fx = Math.sin(cameraYaw);
  const fz = Math.cos(cameraYaw);
  let wx = fx * input.forward - fz * input.right;
  let wz = fz * input.forward + fx * input.right;
  const wishLength = Math.hypot(wx, wz);
  if (wishLength > 1) {
    wx /= wishLength;
    wz /= wishLength;
  }
  const floorHeight = ground.sampleHeight(state.x, state.z);
  const swimming = ground.waterLevel - floorHeight > tuning.swimDepth;
  const topSpeed = swimming ? tuning.walkSpeed : input.run ? tuning.runSpeed : tuning.walkSpeed;
  const blend = 1 - Math.exp(-tuning.acceleration * dt);
  const vx = state.vx + (wx * topSpeed - state.vx) * blend;
  const vz = state.vz + (wz * topSpeed - state.vz) * blend;

  const half = ground.worldSize / 2 - 1;
  const x = clamp(state.x + vx * dt, -half, half);
  const z = clamp(state.z + vz * dt, -half, half);
  const speed = Math.hypot(vx, vz);
  const facing = wishLength > 0.01 ? dampAngle(state.facing, facingFromDirection(wx, wz), tuning.turnRate, dt) : state.facing;

  const groundY = ground.sampleHeight(x, z);
  const floatY = ground.waterLevel - tuning.swimDepth;
  const supportY = ground.waterLevel - groundY > tuning.swimDepth ? floatY : groundY;
  let y = state.y;
  let vy = state.vy;
  let grounded = state.grounded;
  if (grounded && input.jump && !swimming) {
    vy = tuning.jumpSpeed;
    grounded = false;
  }
  if (!grounded) {
    vy -= tuning.gravity * dt;
    y += vy * dt;
    if (y <= supportY) {
      y = supportY;
      vy = 0;
      grounded = true;
    }
  } else {
    // Follow the ground down slopes instead of launching off them.
    y = supportY;
    vy = 0;
  }
  const inWater = ground.waterLevel - supportY >= tuning.swimDepth - 1e-6;
  const state2: LocomotionState = !grounded
    ? 'jump'
    : inWater
      ? 'swim'
      : speed < 0.2
        ? 'idle'
        : speed > (tuning.walkSpeed + tuning.runSpeed) / 2
          ? 'run'
          : 'walk';
  return { x, y, z, facing, vx, vy, vz, speed, grounded, state: state2 };
}

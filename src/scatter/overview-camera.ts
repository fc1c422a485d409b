import { withDefaults } from '../core/options.ts';
import { MOUSE, PerspectiveCamera, TOUCH, Vector3 } from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';
import { clamp, type XYZ, type XZ } from '../core/math.ts';
import { isTyping } from '../core/typing.ts';
import type { HeightField } from './ray-march.ts';

/** Options of {@link OverviewCamera}; every field has a default (see `OVERVIEW_CAMERA_DEFAULTS`). */
export interface OverviewCameraOptions {
  /** Focus point (x, z) on the ground. Default (0, 0). */
  focus?: XZ;
  /** Metres from the focus. Default 70. */
  distance?: number;
  /** Radians above the horizon. Default 0.85. */
  pitch?: number;
  /** Default π (looking north, −Z). */
  yaw?: number;
  /** Pan speed in metres per second at distance 70 (scales with distance). Default 40. */
  panSpeed?: number;
}

/** The defaults of {@link OverviewCameraOptions}, resolved once in the constructor. */
export const OVERVIEW_CAMERA_DEFAULTS: Required<OverviewCameraOptions> = {
  focus: { x: 0, z: 0 },
  distance: 70,
  pitch: 0.85,
  yaw: Math.PI,
  panSpeed: 40,
};

/** Zoom range in metres, pitch range in radians above the horizon, and how far the focus pans. */
const MIN_DISTANCE = 5;
const MAX_DISTANCE = 600;
const MIN_PITCH = 0.1;
const MAX_PITCH = 1.55;
const PAN_LIMIT = 400;
/** The camera stays this far above the ground under it, metres. */
const GROUND_CLEARANCE = 2;

const delta = new Vector3();

/**
 * The scatter page's camera, built on three's `OrbitControls`: it orbits a focus point on the
 * ground from above. Right- (or middle-) drag orbits, the wheel zooms, WASD / arrow keys pan
 * (relative to the view). The left button is the brush's. Yaw follows Cairn's facing convention:
 * the camera looks along (sin yaw, cos yaw).
 *
 * The controls drive `orbit`, an unrendered stand-in camera, and {@link OverviewCamera.update}
 * copies its pose to `camera` lifted above the ground: OrbitControls re-reads its orbit from the
 * object's position, so lifting the real camera in place would turn every hill into a lasting pitch
 * change. The keys stay Cairn's own: OrbitControls pans one step per key repeat and ignores
 * `isTyping`, while this pans smoothly per frame and leaves text fields their keys.
 */
export class OverviewCamera {
  /** three's orbit controls (limits, speeds and buttons may be tuned through it). */
  readonly controls: OrbitControls;
  /** The stand-in camera the controls move; `camera` follows it. */
  readonly orbit = new PerspectiveCamera();
  /** Pan speed in metres per second at distance 70. */
  readonly panSpeed: number;
  private readonly keys = new Set<string>();

  /** The camera the overview places every {@link update}, kept above the ground. */
  readonly camera: PerspectiveCamera;
  private readonly ground: HeightField;

  constructor(camera: PerspectiveCamera, element: HTMLElement, ground: HeightField, options: OverviewCameraOptions = {}) {
    this.camera = camera;
    this.ground = ground;
    const o = withDefaults(OVERVIEW_CAMERA_DEFAULTS, options);
    this.panSpeed = o.panSpeed;
    const controls = new OrbitControls(this.orbit);
    controls.minDistance = MIN_DISTANCE;
    controls.maxDistance = MAX_DISTANCE;
    controls.minPolarAngle = Math.PI / 2 - MAX_PITCH;
    controls.maxPolarAngle = Math.PI / 2 - MIN_PITCH;
    controls.enablePan = false;
    // About 0.005 rad per pixel of drag on a 720-pixel canvas, and ×1.1 per wheel notch.
    controls.rotateSpeed = 0.6;
    controls.zoomSpeed = 2;
    controls.mouseButtons = { LEFT: null, MIDDLE: MOUSE.ROTATE, RIGHT: MOUSE.ROTATE };
    // A single touch paints; two fingers pinch to zoom.
    controls.touches = { ONE: null, TWO: TOUCH.DOLLY_PAN };
    this.controls = controls;
    this.lookAt(o.focus.x, o.focus.z, o);
    controls.connect(element);
    window.addEventListener('keydown', this.onKeyDown);
    window.addEventListener('keyup', this.onKeyUp);
  }

  /** Facing of the view in radians: the camera looks along (sin yaw, cos yaw). */
  get yaw(): number {
    return this.controls.getAzimuthalAngle() + Math.PI;
  }

  /** Radians above the horizon. */
  get pitch(): number {
    return Math.PI / 2 - this.controls.getPolarAngle();
  }

  /** Metres from the focus. */
  get distance(): number {
    return this.controls.getDistance();
  }

  /** The focus point on the ground. */
  get focus(): XYZ {
    const t = this.controls.target;
    return { x: t.x, y: t.y, z: t.z };
  }

  /** Jumps the view (for buttons, tests and the console). */
  lookAt(x: number, z: number, view: { distance?: number; pitch?: number; yaw?: number } = {}): void {
    const distance = clamp(view.distance ?? this.distance, MIN_DISTANCE, MAX_DISTANCE);
    const pitch = clamp(view.pitch ?? this.pitch, MIN_PITCH, MAX_PITCH);
    const yaw = view.yaw ?? this.yaw;
    const y = this.ground.sampleHeight(x, z);
    this.orbit.position.setFromSphericalCoords(distance, Math.PI / 2 - pitch, yaw - Math.PI).add(this.controls.target.set(x, y, z));
    this.controls.update();
    // The controls' update rounds the target by a last bit or two; the focus is where it was asked.
    this.moveFocus(x, y, z);
    this.update(0);
  }

  /** Applies keyboard panning and places the camera. Call once per frame. */
  update(dt: number): void {
    const forward =
      (this.keys.has('KeyW') || this.keys.has('ArrowUp') ? 1 : 0) - (this.keys.has('KeyS') || this.keys.has('ArrowDown') ? 1 : 0);
    const right =
      (this.keys.has('KeyD') || this.keys.has('ArrowRight') ? 1 : 0) - (this.keys.has('KeyA') || this.keys.has('ArrowLeft') ? 1 : 0);
    const focus = this.controls.target;
    if (forward || right) {
      const speed = this.panSpeed * (this.distance / 70) * dt;
      const yaw = this.yaw;
      const fx = Math.sin(yaw);
      const fz = Math.cos(yaw);
      // Screen-right is forward rotated a quarter turn clockwise seen from above: (−fz, fx).
      const x = clamp(focus.x + (fx * forward - fz * right) * speed, -PAN_LIMIT, PAN_LIMIT);
      const z = clamp(focus.z + (fz * forward + fx * right) * speed, -PAN_LIMIT, PAN_LIMIT);
      this.moveFocus(x, this.ground.sampleHeight(x, z), z);
    }
    const p = this.orbit.position;
    this.camera.position.set(p.x, Math.max(p.y, this.ground.sampleHeight(p.x, p.z) + GROUND_CLEARANCE), p.z);
    this.camera.lookAt(focus);
    this.camera.updateMatrixWorld();
  }

  /** Removes the orbit controls and the key listeners; the camera stays. */
  dispose(): void {
    this.controls.dispose();
    window.removeEventListener('keydown', this.onKeyDown);
    window.removeEventListener('keyup', this.onKeyUp);
  }

  /** Moves the focus and the orbit together, so the view keeps its distance and angles. */
  private moveFocus(x: number, y: number, z: number): void {
    const focus = this.controls.target;
    delta.set(x - focus.x, y - focus.y, z - focus.z);
    focus.add(delta);
    this.orbit.position.add(delta);
  }

  private readonly onKeyDown = (event: KeyboardEvent): void => {
    if (isTyping(event)) return;
    this.keys.add(event.code);
  };

  private readonly onKeyUp = (event: KeyboardEvent): void => {
    this.keys.delete(event.code);
  };
}

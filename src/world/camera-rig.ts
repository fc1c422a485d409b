import { withDefaults } from '../core/options.ts';
import { MOUSE, PerspectiveCamera, TOUCH, Vector3 } from 'three';
import { OrbitControls } from 'three/addons/controls/OrbitControls.js';

/** Options of {@link CameraRig}; every field has a default (see `CAMERA_RIG_DEFAULTS`). */
export interface CameraRigOptions {
  /** Facing of the view: the camera looks along (sin yaw, cos yaw). Default π (looking north, −Z). */
  yaw?: number;
  /** Radians above the horizon. Default 0.32. */
  pitch?: number;
  /** Metres from the look point. Default 6.5. */
  distance?: number;
  /** Closest the wheel zooms in, metres. Default 2. */
  minDistance?: number;
  /** Farthest the wheel zooms out, metres. Default 40. */
  maxDistance?: number;
  /** Lowest pitch a drag reaches (below the horizon: the ground keeps the camera up). Default −0.25. */
  minPitch?: number;
  /** Highest pitch a drag reaches. Default 1.35. */
  maxPitch?: number;
  /** Height above the player's feet that the camera looks at, metres. Default 1.45. */
  lookHeight?: number;
  /** The camera stays this far above the ground under it, metres. Default 0.6. */
  groundClearance?: number;
}

/** The defaults of {@link CameraRigOptions}, resolved once in the constructor. */
export const CAMERA_RIG_DEFAULTS: Required<CameraRigOptions> = {
  yaw: Math.PI,
  pitch: 0.32,
  distance: 6.5,
  minDistance: 2,
  maxDistance: 40,
  minPitch: -0.25,
  maxPitch: 1.35,
  lookHeight: 1.45,
  groundClearance: 0.6,
};

const delta = new Vector3();

/**
 * Third-person follow camera built on three's `OrbitControls`: drag (left, or right while a tool
 * holds the left button) orbits, the wheel zooms, and the orbit's target follows the player each
 * frame. Yaw uses the facing convention, so the camera looks along (sin yaw, cos yaw) and W walks
 * away from it.
 *
 * The controls drive `orbit`, an unrendered stand-in camera, and {@link CameraRig.update} copies its
 * pose to `camera` lifted above the ground: OrbitControls re-reads its orbit from the object's
 * position, so lifting the real camera in place would turn every hill into a lasting pitch change.
 */
export class CameraRig {
  /** three's orbit controls (limits, speeds and buttons may be tuned through it). */
  readonly controls: OrbitControls;
  /** The stand-in camera the controls move; `camera` follows it. */
  readonly orbit = new PerspectiveCamera();
  /** Height above the player's feet that the camera looks at. */
  readonly lookHeight: number;
  private readonly groundClearance: number;
  private readonly element: HTMLElement;

  /** The camera the rig places every {@link update}, kept above the ground. */
  readonly camera: PerspectiveCamera;

  constructor(camera: PerspectiveCamera, element: HTMLElement, options: CameraRigOptions = {}) {
    this.camera = camera;
    const o = withDefaults(CAMERA_RIG_DEFAULTS, options);
    this.element = element;
    this.lookHeight = o.lookHeight;
    this.groundClearance = o.groundClearance;
    // Placed around a target at the look height over the origin; update() carries both to the player.
    const target = new Vector3(0, o.lookHeight, 0);
    this.orbit.position.setFromSphericalCoords(o.distance, Math.PI / 2 - o.pitch, o.yaw - Math.PI).add(target);
    const controls = new OrbitControls(this.orbit);
    controls.target.copy(target);
    controls.minDistance = o.minDistance;
    controls.maxDistance = o.maxDistance;
    controls.minPolarAngle = Math.PI / 2 - o.maxPitch;
    controls.maxPolarAngle = Math.PI / 2 - o.minPitch;
    controls.enablePan = false;
    // About 0.005 rad per pixel of drag on a 720-pixel canvas, and ×1.1 per wheel notch.
    controls.rotateSpeed = 0.6;
    controls.zoomSpeed = 2;
    controls.mouseButtons = { LEFT: MOUSE.ROTATE, MIDDLE: MOUSE.ROTATE, RIGHT: MOUSE.ROTATE };
    controls.update();
    this.controls = controls;
    // Registered before the controls' own listener, so it decides the buttons for this press.
    element.addEventListener('pointerdown', this.onPointerDown);
    controls.connect(element);
  }

  /** Facing of the view in radians: the camera looks along (sin yaw, cos yaw). */
  get yaw(): number {
    return this.controls.getAzimuthalAngle() + Math.PI;
  }

  /** Radians above the horizon. */
  get pitch(): number {
    return Math.PI / 2 - this.controls.getPolarAngle();
  }

  /** Metres from the look point. */
  get distance(): number {
    return this.controls.getDistance();
  }

  /**
   * Moves the orbit with `target` (the player's feet) and places the camera, kept above the ground
   * (so it never looks from inside a hill).
   */
  update(target: Vector3, groundHeight: (x: number, z: number) => number): void {
    const look = this.controls.target;
    delta.set(target.x - look.x, target.y + this.lookHeight - look.y, target.z - look.z);
    look.add(delta);
    this.orbit.position.add(delta);
    const p = this.orbit.position;
    this.camera.position.set(p.x, Math.max(p.y, groundHeight(p.x, p.z) + this.groundClearance), p.z);
    this.camera.lookAt(look);
  }

  /** Removes the rig's pointer listener and its orbit controls; the camera stays. */
  dispose(): void {
    this.element.removeEventListener('pointerdown', this.onPointerDown);
    this.controls.dispose();
  }

  // The left button (and a single touch) orbits unless a tool claimed it: tools set data-tool on
  // the canvas (the scatter brush paints with a left drag).
  private readonly onPointerDown = (): void => {
    const claimed = Boolean(this.element.dataset.tool);
    this.controls.mouseButtons.LEFT = claimed ? null : MOUSE.ROTATE;
    this.controls.touches.ONE = claimed ? null : TOUCH.ROTATE;
  };
}

import { clamp } from '../core/math.ts';
import type { PerspectiveCamera } from 'three';
import type { HeightField } from './ray-march.ts';
import { isTyping } from '../core/typing.ts';

/**
 * The scatter page's camera: orbits a focus point on the ground from above. Right-drag orbits,
 * the wheel zooms, WASD / arrow keys pan (relative to the view). The left button is the brush's.
 * Yaw follows Cairn's facing convention: the camera looks along (sin yaw, cos yaw).
 */
export interface OverviewCameraOptions {
  /** Focus point (x, z) on the ground. Default (0, 0). */
  focus?: { x: number; z: number };
  /** Metres from the focus. Default 70. */
  distance?: number;
  /** Radians above the horizon. Default 0.85. */
  pitch?: number;
  /** Default π (looking north, −Z). */
  yaw?: number;
  /** Pan speed in metres per second at distance 70 (scales with distance). Default 40. */
  panSpeed?: number;
}

export class OverviewCamera {
  focusX: number;
  focusZ: number;
  distance: number;
  pitch: number;
  yaw: number;
  readonly panSpeed: number;
  private readonly keys = new Set<string>();
  private dragging = false;
  private lastX = 0;
  private lastY = 0;

  constructor(
    readonly camera: PerspectiveCamera,
    private readonly element: HTMLElement,
    private readonly ground: HeightField,
    options: OverviewCameraOptions = {},
  ) {
    this.focusX = options.focus?.x ?? 0;
    this.focusZ = options.focus?.z ?? 0;
    this.distance = options.distance ?? 70;
    this.pitch = options.pitch ?? 0.85;
    this.yaw = options.yaw ?? Math.PI;
    this.panSpeed = options.panSpeed ?? 40;
    element.addEventListener('pointerdown', this.onPointerDown);
    window.addEventListener('pointermove', this.onPointerMove);
    window.addEventListener('pointerup', this.onPointerUp);
    element.addEventListener('wheel', this.onWheel, { passive: false });
    element.addEventListener('contextmenu', this.onContextMenu);
    window.addEventListener('keydown', this.onKeyDown);
    window.addEventListener('keyup', this.onKeyUp);
    this.update(0);
  }

  /** The focus point on the ground. */
  get focus(): { x: number; y: number; z: number } {
    return { x: this.focusX, y: this.ground.sampleHeight(this.focusX, this.focusZ), z: this.focusZ };
  }

  /** Jumps the view (for buttons, tests and the console). */
  lookAt(x: number, z: number, view: { distance?: number; pitch?: number; yaw?: number } = {}): void {
    this.focusX = x;
    this.focusZ = z;
    if (view.distance !== undefined) this.distance = clamp(view.distance, 5, 600);
    if (view.pitch !== undefined) this.pitch = clamp(view.pitch, 0.1, 1.55);
    if (view.yaw !== undefined) this.yaw = view.yaw;
    this.update(0);
  }

  /** Applies keyboard panning and places the camera. Call once per frame. */
  update(dt: number): void {
    const forward = (this.keys.has('KeyW') || this.keys.has('ArrowUp') ? 1 : 0) - (this.keys.has('KeyS') || this.keys.has('ArrowDown') ? 1 : 0);
    const right = (this.keys.has('KeyD') || this.keys.has('ArrowRight') ? 1 : 0) - (this.keys.has('KeyA') || this.keys.has('ArrowLeft') ? 1 : 0);
    if (forward || right) {
      const speed = this.panSpeed * (this.distance / 70) * dt;
      const fx = Math.sin(this.yaw);
      const fz = Math.cos(this.yaw);
      // Screen-right is forward rotated a quarter turn clockwise seen from above: (−fz, fx).
      this.focusX = clamp(this.focusX + (fx * forward - fz * right) * speed, -400, 400);
      this.focusZ = clamp(this.focusZ + (fz * forward + fx * right) * speed, -400, 400);
    }
    const focusY = this.ground.sampleHeight(this.focusX, this.focusZ);
    const horizontal = Math.cos(this.pitch) * this.distance;
    const x = this.focusX - Math.sin(this.yaw) * horizontal;
    const z = this.focusZ - Math.cos(this.yaw) * horizontal;
    const y = Math.max(focusY + Math.sin(this.pitch) * this.distance, this.ground.sampleHeight(x, z) + 2);
    this.camera.position.set(x, y, z);
    this.camera.lookAt(this.focusX, focusY, this.focusZ);
    this.camera.updateMatrixWorld();
  }

  dispose(): void {
    this.element.removeEventListener('pointerdown', this.onPointerDown);
    window.removeEventListener('pointermove', this.onPointerMove);
    window.removeEventListener('pointerup', this.onPointerUp);
    this.element.removeEventListener('wheel', this.onWheel);
    this.element.removeEventListener('contextmenu', this.onContextMenu);
    window.removeEventListener('keydown', this.onKeyDown);
    window.removeEventListener('keyup', this.onKeyUp);
  }

  private readonly onPointerDown = (event: PointerEvent): void => {
    if (event.button !== 2 && event.button !== 1) return;
    this.dragging = true;
    this.lastX = event.clientX;
    this.lastY = event.clientY;
  };

  private readonly onPointerMove = (event: PointerEvent): void => {
    if (!this.dragging) return;
    this.yaw -= (event.clientX - this.lastX) * 0.005;
    this.pitch = clamp(this.pitch + (event.clientY - this.lastY) * 0.004, 0.1, 1.55);
    this.lastX = event.clientX;
    this.lastY = event.clientY;
  };

  private readonly onPointerUp = (): void => {
    this.dragging = false;
  };

  private readonly onWheel = (event: WheelEvent): void => {
    event.preventDefault();
    this.distance = clamp(this.distance * Math.exp(event.deltaY * 0.001), 5, 600);
  };

  private readonly onContextMenu = (event: Event): void => event.preventDefault();

  private readonly onKeyDown = (event: KeyboardEvent): void => {
    if (isTyping(event)) return;
    this.keys.add(event.code);
  };

  private readonly onKeyUp = (event: KeyboardEvent): void => {
    this.keys.delete(event.code);
  };
}

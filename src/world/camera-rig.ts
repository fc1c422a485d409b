import { clamp } from '../core/math.ts';
import type { PerspectiveCamera, Vector3 } from 'three';

/**
 * Third-person orbit camera: drag (or right-drag) to orbit, wheel to zoom. Yaw uses the facing
 * convention, so the camera looks along (sin yaw, cos yaw) and W walks away from it.
 */
export class CameraRig {
  yaw = Math.PI;
  pitch = 0.32;
  distance = 6.5;
  minDistance = 2;
  maxDistance = 40;
  /** Height above the player's feet that the camera looks at. */
  lookHeight = 1.45;
  private dragging = false;
  private lastX = 0;
  private lastY = 0;
  private readonly element: HTMLElement;

  constructor(
    readonly camera: PerspectiveCamera,
    element: HTMLElement,
  ) {
    this.element = element;
    element.addEventListener('pointerdown', this.onPointerDown);
    window.addEventListener('pointermove', this.onPointerMove);
    window.addEventListener('pointerup', this.onPointerUp);
    element.addEventListener('wheel', this.onWheel, { passive: false });
    element.addEventListener('contextmenu', this.onContextMenu);
  }

  /**
   * Places the camera behind `target` and keeps it above the ground (so it never looks from
   * inside a hill).
   */
  update(target: Vector3, groundHeight: (x: number, z: number) => number): void {
    const horizontal = Math.cos(this.pitch) * this.distance;
    const x = target.x - Math.sin(this.yaw) * horizontal;
    const z = target.z - Math.cos(this.yaw) * horizontal;
    let y = target.y + this.lookHeight + Math.sin(this.pitch) * this.distance;
    y = Math.max(y, groundHeight(x, z) + 0.6);
    this.camera.position.set(x, y, z);
    this.camera.lookAt(target.x, target.y + this.lookHeight, target.z);
  }

  dispose(): void {
    this.element.removeEventListener('pointerdown', this.onPointerDown);
    window.removeEventListener('pointermove', this.onPointerMove);
    window.removeEventListener('pointerup', this.onPointerUp);
    this.element.removeEventListener('wheel', this.onWheel);
    this.element.removeEventListener('contextmenu', this.onContextMenu);
  }

  private readonly onPointerDown = (event: PointerEvent): void => {
    // Left-drag orbits unless a tool claimed the left button (tools set data-tool on the canvas).
    if (event.button === 0 && this.element.dataset.tool) return;
    this.dragging = true;
    this.lastX = event.clientX;
    this.lastY = event.clientY;
  };

  private readonly onPointerMove = (event: PointerEvent): void => {
    if (!this.dragging) return;
    this.yaw -= (event.clientX - this.lastX) * 0.005;
    this.pitch = clamp(this.pitch + (event.clientY - this.lastY) * 0.004, -0.25, 1.35);
    this.lastX = event.clientX;
    this.lastY = event.clientY;
  };

  private readonly onPointerUp = (): void => {
    this.dragging = false;
  };

  private readonly onWheel = (event: WheelEvent): void => {
    event.preventDefault();
    this.distance = clamp(this.distance * Math.exp(event.deltaY * 0.001), this.minDistance, this.maxDistance);
  };

  private readonly onContextMenu = (event: Event): void => event.preventDefault();
}

import { withDefaults } from '../core/options.ts';
import { BufferAttribute, BufferGeometry, Line, LineBasicMaterial, Vector2, Vector3, type Object3D, type PerspectiveCamera } from 'three';
import { rayMarchHeightfield, type HeightField, type RayHit } from './ray-march.ts';
import type { ScatterLayer } from './scatter-layer.ts';
import { Emitter } from '../core/emitter.ts';

/**
 * The brush as a pointer tool (DOM glue). Pointer-move finds the ground under the cursor by
 * ray-marching the heightmap (never by raycasting the terrain mesh) and draws a ring that hugs
 * the ground; left-drag paints dabs spaced along the path (Alt-drag, or erase mode, erases).
 * While active it sets `canvas.dataset.tool = 'scatter'`, so the world's camera rig leaves the
 * left button alone.
 */

export type BrushMode = 'paint' | 'erase';

/** Options of a {@link BrushTool}. */
export interface BrushToolOptions {
  /** The canvas the brush listens to (pointer events) and marks with `data-tool` while active. */
  canvas: HTMLCanvasElement;
  /** The camera the pointer's ray leaves from. */
  camera: PerspectiveCamera;
  /** The layer the dabs paint into and erase from. */
  layer: ScatterLayer;
  /** The ground the pointer's ray is marched against. */
  ground: HeightField;
  /** Where the cursor ring goes (the scene). */
  parent: Object3D;
  /** Brush radius in metres. Default 8. */
  radius?: number;
  /** Distance between dabs along a drag, as a fraction of the radius. Default 0.5. */
  dabSpacing?: number;
  /** Start active. Default true. */
  active?: boolean;
}

/** Defaults of {@link BrushToolOptions}: an 8 m brush, dabs half a radius apart, active. */
export const BRUSH_TOOL_DEFAULTS: Required<Pick<BrushToolOptions, 'radius' | 'dabSpacing' | 'active'>> = {
  radius: 8,
  dabSpacing: 0.5,
  active: true,
};

/** Where the cursor is and what the last query cost; published in stats.scatter.cursor. */
export interface CursorState {
  /** East position of the ground point under the pointer (m). */
  x: number;
  /** Its height (m). */
  y: number;
  /** Its south position (m). */
  z: number;
  /** Height lookups the ray march spent. */
  samples: number;
}

/** What a {@link BrushTool} emits. */
export interface BrushToolEvents extends Record<string, unknown> {
  /** A press on the ground, before its first dab: listeners may apply events that go first. */
  strokeStart: {
    /** East position of the press on the ground (m). */
    x: number;
    /** South position of the press on the ground (m). */
    z: number;
    /** The stroke erases (erase mode, or Alt held). */
    erasing: boolean;
  };
  /** The button was released. */
  strokeEnd: Record<string, never>;
  /** A dab threw (no preset chosen, say) and the stroke stopped. Unheard, it goes to console.warn. */
  error: {
    /** What the dab threw. */
    error: Error;
  };
}

export class BrushTool extends Emitter<BrushToolEvents> {
  /** Brush radius (m); set it with {@link setRadius} (clamped to 1…{@link maxRadius}). */
  radius: number;
  /** Largest radius {@link setRadius} allows, metres (shared edits lower it to what the server takes). Default 60. */
  maxRadius = 60;
  /** Whether a plain drag paints or erases (Alt-drag always erases). */
  mode: BrushMode = 'paint';
  /** Distance between dabs along a drag, as a fraction of the radius. */
  readonly dabSpacing: number;
  /** The ground under the pointer, or null when the pointer is off the ground. */
  cursor: CursorState | null = null;
  /** Dabs applied since creation (paint and erase). */
  dabs = 0;
  private active = false;
  private painting = false;
  private erasing = false;
  private lastDab: { x: number; z: number } | null = null;
  private readonly canvas: HTMLCanvasElement;
  private readonly camera: PerspectiveCamera;
  private readonly layer: ScatterLayer;
  private readonly ground: HeightField;
  private readonly ring: Line;
  private readonly ringPositions: Float32Array;
  private errorListeners = 0;
  private readonly ndc = new Vector2();
  private readonly origin = new Vector3();
  private readonly direction = new Vector3();
  private static readonly SEGMENTS = 64;

  constructor(options: BrushToolOptions) {
    super();
    this.canvas = options.canvas;
    this.camera = options.camera;
    this.layer = options.layer;
    this.ground = options.ground;
    const resolved = withDefaults(BRUSH_TOOL_DEFAULTS, options);
    this.radius = resolved.radius;
    this.dabSpacing = resolved.dabSpacing;
    this.ringPositions = new Float32Array((BrushTool.SEGMENTS + 1) * 3);
    const geometry = new BufferGeometry();
    geometry.setAttribute('position', new BufferAttribute(this.ringPositions, 3));
    const material = new LineBasicMaterial({ color: 0xffffff, depthTest: false, transparent: true, opacity: 0.9 });
    this.ring = new Line(geometry, material);
    this.ring.name = 'scatter-brush-cursor';
    this.ring.frustumCulled = false;
    this.ring.renderOrder = 10;
    this.ring.visible = false;
    options.parent.add(this.ring);
    this.canvas.addEventListener('pointermove', this.onPointerMove);
    this.canvas.addEventListener('pointerdown', this.onPointerDown);
    window.addEventListener('pointerup', this.onPointerUp);
    this.canvas.addEventListener('pointerleave', this.onPointerLeave);
    this.setActive(resolved.active);
  }

  /** As {@link Emitter.on}; counts who hears `error`, so an unheard one still reaches the console. */
  override on<K extends keyof BrushToolEvents>(type: K, listener: (payload: BrushToolEvents[K]) => void): () => void {
    const off = super.on(type, listener);
    if (type !== 'error') return off;
    this.errorListeners++;
    let on = true;
    return () => {
      if (on) this.errorListeners--;
      on = false;
      off();
    };
  }

  /** True while the brush takes the left button. */
  get isActive(): boolean {
    return this.active;
  }

  /** Takes (true) or gives back (false) the left button; inactive, it hides the cursor ring and ends any stroke. */
  setActive(active: boolean): void {
    this.active = active;
    if (active) this.canvas.dataset.tool = 'scatter';
    else if (this.canvas.dataset.tool === 'scatter') delete this.canvas.dataset.tool;
    if (!active) {
      this.painting = false;
      this.ring.visible = false;
    }
  }

  /** Sets the brush radius, clamped to 1…{@link maxRadius} metres. */
  setRadius(radius: number): void {
    this.radius = Math.min(this.maxRadius, Math.max(1, radius));
    if (this.cursor) this.drawRing(this.cursor.x, this.cursor.z);
  }

  /**
   * The ground point under a canvas pixel (CSS pixels from the canvas's top-left), by ray march.
   * Null when the pointer is on the sky.
   */
  pick(clientX: number, clientY: number): RayHit | null {
    const rect = this.canvas.getBoundingClientRect();
    this.ndc.set(((clientX - rect.left) / rect.width) * 2 - 1, -((clientY - rect.top) / rect.height) * 2 + 1);
    this.camera.updateMatrixWorld();
    this.origin.setFromMatrixPosition(this.camera.matrixWorld);
    this.direction.set(this.ndc.x, this.ndc.y, 0.5).unproject(this.camera).sub(this.origin);
    return rayMarchHeightfield(this.ground, this.origin, this.direction);
  }

  /** Gives the left button back, removes the listeners and the cursor ring. */
  dispose(): void {
    this.setActive(false);
    this.canvas.removeEventListener('pointermove', this.onPointerMove);
    this.canvas.removeEventListener('pointerdown', this.onPointerDown);
    window.removeEventListener('pointerup', this.onPointerUp);
    this.canvas.removeEventListener('pointerleave', this.onPointerLeave);
    this.ring.removeFromParent();
    this.ring.geometry.dispose();
    (this.ring.material as LineBasicMaterial).dispose();
    this.clear();
    this.errorListeners = 0;
  }

  private readonly onPointerMove = (event: PointerEvent): void => {
    if (!this.active) return;
    const hit = this.pick(event.clientX, event.clientY);
    if (!hit) {
      this.cursor = null;
      this.ring.visible = false;
      return;
    }
    this.cursor = { x: hit.x, y: hit.y, z: hit.z, samples: hit.samples };
    this.drawRing(hit.x, hit.z);
    if (this.painting) this.dragTo(hit.x, hit.z);
  };

  private readonly onPointerDown = (event: PointerEvent): void => {
    if (!this.active || event.button !== 0) return;
    const hit = this.pick(event.clientX, event.clientY);
    if (!hit) return;
    this.painting = true;
    this.erasing = this.mode === 'erase' || event.altKey;
    this.canvas.setPointerCapture?.(event.pointerId);
    this.cursor = { x: hit.x, y: hit.y, z: hit.z, samples: hit.samples };
    this.drawRing(hit.x, hit.z);
    this.emit('strokeStart', { x: hit.x, z: hit.z, erasing: this.erasing });
    this.dab(hit.x, hit.z);
  };

  private readonly onPointerUp = (): void => {
    const was = this.painting;
    this.painting = false;
    this.lastDab = null;
    if (was) this.emit('strokeEnd', {});
  };

  private readonly onPointerLeave = (): void => {
    if (!this.painting) this.ring.visible = false;
  };

  /** Dabs along the segment from the last dab, one every `dabSpacing × radius` metres. */
  private dragTo(x: number, z: number): void {
    const last = this.lastDab;
    if (!last) return this.dab(x, z);
    const step = Math.max(0.25, this.radius * this.dabSpacing);
    let dx = x - last.x;
    let dz = z - last.z;
    let distance = Math.hypot(dx, dz);
    while (distance >= step) {
      dx /= distance;
      dz /= distance;
      this.dab(this.lastDab!.x + dx * step, this.lastDab!.z + dz * step);
      dx = x - this.lastDab!.x;
      dz = z - this.lastDab!.z;
      distance = Math.hypot(dx, dz);
    }
  }

  private dab(x: number, z: number): void {
    this.lastDab = { x, z };
    try {
      if (this.erasing) this.layer.erase(x, z, this.radius);
      else this.layer.paint(x, z, this.radius);
      this.dabs++;
    } catch (error) {
      this.painting = false;
      if (this.errorListeners > 0) this.emit('error', { error: error as Error });
      else console.warn((error as Error).message);
    }
  }

  private drawRing(cx: number, cz: number): void {
    const n = BrushTool.SEGMENTS;
    const p = this.ringPositions;
    for (let i = 0; i <= n; i++) {
      const a = (i / n) * Math.PI * 2;
      const x = cx + Math.cos(a) * this.radius;
      const z = cz + Math.sin(a) * this.radius;
      p[i * 3] = x;
      p[i * 3 + 1] = this.ground.sampleHeight(x, z) + 0.25;
      p[i * 3 + 2] = z;
    }
    const attribute = this.ring.geometry.getAttribute('position') as BufferAttribute;
    attribute.needsUpdate = true;
    (this.ring.material as LineBasicMaterial).color.set(this.mode === 'erase' ? 0xff7766 : 0xffffff);
    this.ring.visible = true;
  }
}

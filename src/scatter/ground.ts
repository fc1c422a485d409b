import { Box3, Raycaster, Vector3, type Object3D } from 'three';
import { withDefaults } from '../core/options.ts';
import type { GroundSampler } from './placement.ts';
import type { HeightField } from './ray-march.ts';

/** The ground the brush and a layer scatter on: heights, slopes and normals, and where it ends. */
export type ScatterGround = GroundSampler & HeightField;

/** Where a ground is, on the XZ plane (metres). */
export interface GroundBounds {
  /** West edge (m). */
  minX: number;
  /** North edge (m). */
  minZ: number;
  /** East edge (m). */
  maxX: number;
  /** South edge (m). */
  maxZ: number;
}

/** Options of {@link groundFromHeight}. */
export interface HeightGroundOptions {
  /** Where the ground is: candidates outside are rejected as 'outside'. Default unbounded. */
  bounds?: GroundBounds | null;
  /**
   * Height of the water surface: ground below it is under water, and presets' altitude bands
   * (`altitude: [min, max]`) are metres above it. Default 0, as Cairn's terrain.
   */
  waterLevel?: number;
  /** Distance of the finite differences that give slope and normal, metres. Default 0.5. */
  step?: number;
}

const HEIGHT_GROUND_DEFAULTS: Required<HeightGroundOptions> = { bounds: null, waterLevel: 0, step: 0.5 };

/**
 * A ground from a height function, for scattering on your own terrain without Cairn's `Heightmap`:
 * slope and normal come from central differences `step` apart.
 *
 * ```ts
 * import { groundFromHeight, ScatterLayer } from 'cairn-world/scatter';
 *
 * // Gentle dunes 60 m across, 2–6 m above the water: their own ground, no Cairn terrain.
 * const ground = groundFromHeight((x, z) => 4 + Math.sin(x / 9) * 1.5 + Math.cos(z / 7), {
 *   bounds: { minX: -30, minZ: -30, maxX: 30, maxZ: 30 },
 * });
 * const layer = new ScatterLayer({ ground, seed: 3 });
 * await layer.choosePreset('mixed-forest');
 * layer.paint(0, 0, 12);
 * if (layer.stats.instances === 0) throw new Error('nothing was placed');
 * const first = layer.snapshot()[0]!;
 * if (Math.abs(first.y - ground.sampleHeight(first.x, first.z)) > 0.5) throw new Error('a prop floats off the dunes');
 * layer.dispose();
 * ```
 */
export function groundFromHeight(height: (x: number, z: number) => number, options: HeightGroundOptions = {}): ScatterGround {
  const { bounds, waterLevel, step } = withDefaults(HEIGHT_GROUND_DEFAULTS, options);
  const gradient = (x: number, z: number): [number, number] => [
    (height(x + step, z) - height(x - step, z)) / (2 * step),
    (height(x, z + step) - height(x, z - step)) / (2 * step),
  ];
  return {
    waterLevel,
    sampleHeight: height,
    sampleSlope(x, z) {
      const [dx, dz] = gradient(x, z);
      return (Math.atan(Math.hypot(dx, dz)) * 180) / Math.PI;
    },
    sampleNormal(x, z, out = { x: 0, y: 1, z: 0 }) {
      const [dx, dz] = gradient(x, z);
      const length = Math.sqrt(dx * dx + 1 + dz * dz);
      out.x = -dx / length;
      out.y = 1 / length;
      out.z = -dz / length;
      return out;
    },
    contains: (x, z) => bounds === null || (x >= bounds.minX && x <= bounds.maxX && z >= bounds.minZ && z <= bounds.maxZ),
  };
}

/** Options of {@link groundFromMesh}. */
export interface MeshGroundOptions {
  /** Height samples along the longer side of the mesh's bounds. Default 129. */
  resolution?: number;
  /** Height of the water surface; presets' altitude bands are metres above it. Default 0. */
  waterLevel?: number;
}

const MESH_GROUND_DEFAULTS: Required<MeshGroundOptions> = { resolution: 129, waterLevel: 0 };

/**
 * A ground from your own terrain mesh (any `Object3D`: its meshes, in their world transforms):
 * straight-down rays sample its top surface once, on a grid over its bounds (`resolution` along the
 * longer side), and the brush reads that grid bilinearly, so painting never raycasts the mesh.
 * Where a ray misses (holes, the outside of a round island) the ground does not exist and nothing
 * is placed. Sampling costs one raycast per grid point at creation: for a mesh of hundreds of
 * thousands of triangles lower `resolution`, or pass a height function to {@link groundFromHeight}.
 */
export function groundFromMesh(object: Object3D, options: MeshGroundOptions = {}): ScatterGround {
  const { resolution, waterLevel } = withDefaults(MESH_GROUND_DEFAULTS, options);
  object.updateWorldMatrix(true, true);
  const box = new Box3().setFromObject(object);
  if (box.isEmpty()) throw new RangeError('groundFromMesh: the object has no geometry to stand on');
  const spanX = Math.max(box.max.x - box.min.x, 1e-6);
  const spanZ = Math.max(box.max.z - box.min.z, 1e-6);
  const spacing = Math.max(spanX, spanZ) / (Math.max(2, resolution) - 1);
  const columns = Math.max(2, Math.round(spanX / spacing) + 1);
  const rows = Math.max(2, Math.round(spanZ / spacing) + 1);
  const dx = spanX / (columns - 1);
  const dz = spanZ / (rows - 1);
  const heights = new Float32Array(columns * rows);
  const raycaster = new Raycaster();
  const origin = new Vector3();
  const down = new Vector3(0, -1, 0);
  const top = box.max.y + 1;
  raycaster.far = box.max.y - box.min.y + 2;
  for (let iz = 0; iz < rows; iz++) {
    for (let ix = 0; ix < columns; ix++) {
      raycaster.set(origin.set(box.min.x + ix * dx, top, box.min.z + iz * dz), down);
      const [hit] = raycaster.intersectObject(object, true);
      heights[iz * columns + ix] = hit ? hit.point.y : Number.NaN;
    }
  }
  // Bilinear, with the edge height continuing outside (as Cairn's Heightmap), so slopes at the rim are defined.
  const height = (x: number, z: number): number => {
    const gx = Math.min(Math.max((x - box.min.x) / dx, 0), columns - 1);
    const gz = Math.min(Math.max((z - box.min.z) / dz, 0), rows - 1);
    const ix = Math.min(Math.floor(gx), columns - 2);
    const iz = Math.min(Math.floor(gz), rows - 2);
    const fx = gx - ix;
    const fz = gz - iz;
    const row = iz * columns + ix;
    const h00 = heights[row]!;
    const h10 = heights[row + 1]!;
    const h01 = heights[row + columns]!;
    const h11 = heights[row + columns + 1]!;
    return (h00 * (1 - fx) + h10 * fx) * (1 - fz) + (h01 * (1 - fx) + h11 * fx) * fz;
  };
  const ground = groundFromHeight(height, {
    bounds: { minX: box.min.x, minZ: box.min.z, maxX: box.max.x, maxZ: box.max.z },
    waterLevel,
    step: Math.min(dx, dz),
  });
  return {
    ...ground,
    // A sample next to a miss has no height (NaN): the ground is not there.
    contains: (x, z) => ground.contains(x, z) && Number.isFinite(height(x, z)) && Number.isFinite(ground.sampleSlope(x, z)),
  };
}

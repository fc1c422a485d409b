import type { BufferGeometry, Material } from 'three';

/** One geometry piece of a prop with its material: a trunk, a canopy, a cluster of blades. */
export interface PropPiece {
  geometry: BufferGeometry;
  material: Material;
  /** For messages and the LOD report (e.g. "trunk"). */
  name?: string;
  /** Whether the near (full-detail) level casts shadows. Default true. */
  castShadow?: boolean;
}

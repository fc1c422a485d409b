import type { BufferGeometry, Material } from 'three';

/** One geometry piece of a prop with its material: a trunk, a canopy, a cluster of blades. */
export interface PropPiece {
  /** The piece's geometry (prop space: it stands on its origin, +Y up, metres). */
  geometry: BufferGeometry;
  /** The piece's material. */
  material: Material;
  /** For messages and the LOD report (e.g. "trunk"). */
  name?: string;
  /** Whether the near (full-detail) level casts shadows. Default true. */
  castShadow?: boolean;
}

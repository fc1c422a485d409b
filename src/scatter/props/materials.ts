import { DoubleSide, MeshStandardMaterial } from 'three';

/**
 * The procedural props' materials. Colour lives in vertex colours, so a handful of materials
 * (one per surface kind) serve every prop and the renderer builds few pipelines.
 */
export interface PropMaterials {
  /** Trunks and branches. */
  bark: MeshStandardMaterial;
  /** Canopies, bushes and other leaves. */
  foliage: MeshStandardMaterial;
  /** Rocks, scree and pebbles. */
  stone: MeshStandardMaterial;
  /** Thin blades (grass, reeds, flower stems): visible from both sides. */
  blade: MeshStandardMaterial;
  /** Frees every material. */
  dispose(): void;
}

/** The procedural props' materials: one per surface kind, colour from vertex colours. */
export function createPropMaterials(): PropMaterials {
  const make = (name: string, roughness: number, doubleSided = false): MeshStandardMaterial => {
    const material = new MeshStandardMaterial({ vertexColors: true, roughness, metalness: 0 });
    if (doubleSided) material.side = DoubleSide;
    material.name = `scatter-${name}`;
    return material;
  };
  const materials = {
    bark: make('bark', 0.95),
    foliage: make('foliage', 0.8),
    stone: make('stone', 0.9),
    blade: make('blade', 0.75, true),
  };
  return {
    ...materials,
    dispose() {
      for (const material of Object.values(materials)) material.dispose();
    },
  };
}

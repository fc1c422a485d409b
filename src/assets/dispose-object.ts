import type { BufferGeometry, Material, Object3D, Texture } from 'three';

/** The GPU-backed resources an object tree holds (each counted once, however often shared). */
export interface ObjectResources {
  /** Every geometry. */
  geometries: Set<BufferGeometry>;
  /** Every material. */
  materials: Set<Material>;
  /** Every texture, from any material slot or shader uniform. */
  textures: Set<Texture>;
}

function isTexture(value: unknown): value is Texture {
  return typeof value === 'object' && value !== null && (value as { isTexture?: boolean }).isTexture === true;
}

function addTextures(value: unknown, into: Set<Texture>): void {
  if (isTexture(value)) into.add(value);
  else if (Array.isArray(value)) for (const item of value) if (isTexture(item)) into.add(item);
}

/**
 * Finds every geometry, material and texture under `root`: textures in any material slot (map,
 * normalMap, the ones glTF extensions add…) and in ShaderMaterial uniforms.
 */
export function collectResources(root: Object3D): ObjectResources {
  const resources: ObjectResources = { geometries: new Set(), materials: new Set(), textures: new Set() };
  root.traverse((object) => {
    const { geometry, material } = object as Object3D & { geometry?: BufferGeometry; material?: Material | Material[] };
    if (geometry?.isBufferGeometry) resources.geometries.add(geometry);
    const materials = Array.isArray(material) ? material : material ? [material] : [];
    for (const m of materials) {
      if (!m?.isMaterial) continue;
      resources.materials.add(m);
      for (const value of Object.values(m)) addTextures(value, resources.textures);
      const uniforms = (m as Material & { uniforms?: Record<string, { value: unknown }> }).uniforms;
      if (uniforms) for (const uniform of Object.values(uniforms)) addTextures(uniform?.value, resources.textures);
    }
  });
  return resources;
}

/** How many of each kind a disposal released. */
export interface DisposedCounts {
  /** Geometries disposed. */
  geometries: number;
  /** Materials disposed. */
  materials: number;
  /** Textures disposed. */
  textures: number;
}

/**
 * Disposes everything {@link collectResources} finds under `root` and detaches it from its parent.
 * Image bitmaps behind textures are closed too: the renderer frees the GPU copy on dispose, but a
 * decoded ImageBitmap keeps its memory until closed or collected.
 */
export function disposeObject3D(root: Object3D): DisposedCounts {
  const { geometries, materials, textures } = collectResources(root);
  root.removeFromParent();
  for (const geometry of geometries) geometry.dispose();
  for (const material of materials) material.dispose();
  for (const texture of textures) {
    texture.dispose();
    const image = texture.image as { close?: () => void } | null;
    if (typeof ImageBitmap !== 'undefined' && image instanceof ImageBitmap) image.close?.();
  }
  return { geometries: geometries.size, materials: materials.size, textures: textures.size };
}

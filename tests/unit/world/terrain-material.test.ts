import { describe, expect, it } from 'vitest';
import {
  createDetailTexture,
  createTerrainMaterial,
  TERRAIN_ANISOTROPY,
  terrainAnisotropyFor,
} from '../../../src/world/terrain/terrain-material.ts';
import { generateTerrain } from '../../../src/world/terrain/generate.ts';
import { createTerrainMesh } from '../../../src/world/terrain/terrain-mesh.ts';

describe('the terrain material', () => {
  it('filters its detail texture without anisotropy on a software rasteriser, at 4× on a GPU', () => {
    expect(terrainAnisotropyFor({ software: true })).toBe(1);
    expect(terrainAnisotropyFor({ software: false })).toBe(TERRAIN_ANISOTROPY.gpu);
    const heightmap = generateTerrain({ seed: 1, resolution: 17 });
    expect(createTerrainMesh(heightmap, { anisotropy: 1 }).material.detail.anisotropy).toBe(1);
    expect(createTerrainMesh(heightmap).material.detail.anisotropy).toBe(4);
  });

  it('changes the filtering in use by swapping in a copy of the texture, freeing the old one', () => {
    const material = createTerrainMaterial(createDetailTexture(16, 3, 4));
    const first = material.detail;
    let freed = 0;
    first.addEventListener('dispose', () => freed++);
    material.setDetailAnisotropy(1);
    expect(material.detail).not.toBe(first);
    expect(material.detail.anisotropy).toBe(1);
    expect(material.detail.source).toBe(first.source);
    expect(freed).toBe(1);
    material.setDetailAnisotropy(1);
    expect(freed).toBe(1);
  });

  it('frees its detail texture with it', () => {
    const detail = createDetailTexture(16, 3);
    const material = createTerrainMaterial(detail);
    let freed = 0;
    detail.addEventListener('dispose', () => freed++);
    material.dispose();
    expect(freed).toBe(1);
  });
});

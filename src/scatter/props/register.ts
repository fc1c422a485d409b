import type { PropCatalog } from '../catalog.ts';
import { createPropMaterials, type PropMaterials } from './materials.ts';
import { buildProceduralProp, PROCEDURAL_PROPS } from './procedural.ts';

/**
 * Registers Cairn's procedural props (ids prefixed `proc:`) in a catalog. Geometry is generated
 * lazily, when a prop is first resolved. Returns the shared materials (dispose them with the
 * catalog).
 */
export function registerProceduralProps(catalog: PropCatalog, materials: PropMaterials = createPropMaterials()): PropMaterials {
  for (const definition of PROCEDURAL_PROPS) {
    catalog.register({
      id: `proc:${definition.id}`,
      category: definition.category,
      pieces: () => buildProceduralProp(definition, materials),
    });
  }
  return materials;
}

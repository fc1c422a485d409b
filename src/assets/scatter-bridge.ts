import type { BufferGeometry, Mesh, Object3D } from 'three';
import { BufferAttribute } from 'three';
import type { CatalogEntry } from './polyhaven-types.ts';

/**
 * What the assets module needs from the scatter module's prop catalog (src/scatter/catalog.ts
 * `PropCatalog` has this shape). Structural, so assets does not import scatter.
 */
export interface ScatterPropCatalog {
  /** Adds a prop made from `object3D` to `category`; `replace` replaces one of the same id. */
  register(registration: { id: string; category: string; object3D: Object3D; replace?: boolean }): void;
  /** The categories with props. */
  categories(): string[];
  /** The prop ids of a category, in registration order. */
  propsIn(category: string): readonly string[];
}

/** Category for props that match none of the catalog's categories. Presets do not use it. */
export const FALLBACK_SCATTER_CATEGORY = 'prop';

/** Words Poly Haven uses that mean one of scatter's categories. */
const SYNONYMS: Record<string, string> = {
  rocks: 'rock',
  stone: 'rock',
  stones: 'rock',
  boulder: 'rock',
  boulders: 'rock',
  pebbles: 'pebble',
  gravel: 'pebble',
  trees: 'broadleaf',
  tree: 'broadleaf',
  pine: 'conifer',
  fir: 'conifer',
  spruce: 'conifer',
  shrub: 'bush',
  shrubs: 'bush',
  bushes: 'bush',
  plants: 'bush',
  plant: 'bush',
  flowers: 'flower',
  grasses: 'grass',
  reeds: 'reed',
  logs: 'driftwood',
  log: 'driftwood',
  branch: 'driftwood',
};

/**
 * Picks the scatter category a Poly Haven model most likely belongs to: the first of its
 * categories, then tags, that is (or means, or is the plural of) a category the catalog has.
 * Falls back to {@link FALLBACK_SCATTER_CATEGORY}.
 */
export function guessScatterCategory(entry: Pick<CatalogEntry, 'categories' | 'tags' | 'name'>, available: readonly string[]): string {
  const known = new Set(available);
  const words = [...entry.categories, ...entry.tags, ...entry.name.toLowerCase().split(/[^a-z]+/)];
  for (const word of words) {
    for (const candidate of [word, SYNONYMS[word], word.endsWith('s') ? word.slice(0, -1) : undefined]) {
      if (candidate && known.has(candidate)) return candidate;
    }
  }
  return FALLBACK_SCATTER_CATEGORY;
}

/** The id a Poly Haven model gets in the scatter catalog. */
export function scatterPropId(assetId: string): string {
  return `polyhaven-${assetId}`;
}

/**
 * Makes each geometry's index hold exactly what is drawn (after simplification the index buffer
 * keeps its original length and groups / draw range say what to draw), so a consumer that reads
 * the whole index (scatter's LOD baking) gets the simplified mesh, not stale triangles. Frees the
 * old GPU copy first: the model is leaving this renderer's hands.
 */
export function compactDrawnIndices(root: Object3D): void {
  const done = new Set<BufferGeometry>();
  root.traverse((object) => {
    const geometry = (object as Mesh).geometry as BufferGeometry | undefined;
    if (!(object as Mesh).isMesh || !geometry?.index || done.has(geometry)) return;
    done.add(geometry);
    const index = geometry.index;
    let start: number;
    let end: number;
    if (geometry.groups.length > 0) {
      start = Math.min(...geometry.groups.map((g) => g.start));
      end = Math.max(...geometry.groups.map((g) => g.start + g.count));
    } else {
      start = geometry.drawRange.start;
      end = Math.min(index.count, start + geometry.drawRange.count);
    }
    if (start === 0 && end === index.count) return;
    const groups = geometry.groups.map((g) => ({ ...g, start: g.start - start }));
    geometry.dispose();
    geometry.setIndex(new BufferAttribute((index.array as Uint16Array | Uint32Array).slice(start, end), 1));
    geometry.clearGroups();
    for (const g of groups) geometry.addGroup(g.start, g.count, g.materialIndex);
    geometry.setDrawRange(0, Infinity);
  });
}

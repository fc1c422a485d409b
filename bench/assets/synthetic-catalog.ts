/** A seeded 10,000-entry model catalog shaped like Poly Haven's, for the search benchmark. */
import { Mulberry32 } from '../../src/core/rng.ts';
import type { CatalogEntry } from '../../src/assets/polyhaven-types.ts';

const ADJECTIVES = [
  'wooden',
  'mossy',
  'old',
  'rusty',
  'painted',
  'broken',
  'modern',
  'antique',
  'stone',
  'metal',
  'glass',
  'large',
  'small',
  'carved',
  'worn',
  'concrete',
  'marble',
  'leather',
];
const NOUNS = [
  'chair',
  'table',
  'rock',
  'boulder',
  'barrel',
  'crate',
  'lamp',
  'bench',
  'vase',
  'statue',
  'shelf',
  'stool',
  'cabinet',
  'bucket',
  'kettle',
  'ladder',
  'trunk',
  'fence',
  'log',
  'stump',
  'sofa',
  'desk',
  'bottle',
  'cart',
];
const CATEGORIES = [
  'props',
  'furniture',
  'nature',
  'rocks',
  'decorative',
  'industrial',
  'containers',
  'seating',
  'lighting',
  'tools',
  'outdoor',
  'kitchen',
  'plants',
];
const TAGS = [
  'wood',
  'metal',
  'vintage',
  'clean',
  'dirty',
  'handmade',
  'iron',
  'ceramic',
  'farm',
  'garden',
  'medieval',
  'rural',
  'urban',
  'green',
  'brown',
  'white',
  'scan',
  'photogrammetry',
  'low poly',
  'game ready',
];

export function syntheticCatalog(count = 10_000, seed = 42): CatalogEntry[] {
  const rng = new Mulberry32(seed);
  const pick = <T>(list: readonly T[]): T => list[rng.int(list.length)]!;
  return Array.from({ length: count }, (_, i) => {
    const adjective = pick(ADJECTIVES);
    const noun = pick(NOUNS);
    const n = String(1 + (i % 99)).padStart(2, '0');
    return {
      id: `${adjective}_${noun}_${n}_${i}`,
      name: `${adjective[0]!.toUpperCase()}${adjective.slice(1)} ${noun[0]!.toUpperCase()}${noun.slice(1)} ${n}`,
      categories: [pick(CATEGORIES), pick(CATEGORIES)],
      tags: Array.from({ length: 3 + rng.int(6) }, () => pick(TAGS)),
      thumbnailUrl: null,
      downloads: rng.int(50_000),
      authors: ['Bench'],
    };
  });
}

/** Every prefix of each query, in typing order: what a search box sees keystroke by keystroke. */
export function keystrokes(queries: readonly string[]): string[] {
  return queries.flatMap((q) => Array.from({ length: q.length }, (_, i) => q.slice(0, i + 1)));
}

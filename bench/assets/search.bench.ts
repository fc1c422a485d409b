/**
 * Search latency per keystroke over a 10,000-entry synthetic catalog (target: under 2 ms).
 * Same catalog, same typed queries, interleaved rounds:
 * - naive: per keystroke, lower-case every field of every entry, match with regular expressions,
 *   score, sort all matches;
 * - SearchIndex without narrowing: precomputed fields and haystack, bounded top-60;
 * - SearchIndex as the page uses it: also re-checks only the previous matches while typing.
 */
import { compare, formatMs, percentile, printComparison } from '../lib/measure.ts';
import { matchScore, SearchIndex, type MatchField, type MatchKind } from '../../src/assets/search-index.ts';
import type { CatalogEntry } from '../../src/assets/polyhaven-types.ts';
import { keystrokes, syntheticCatalog } from './synthetic-catalog.ts';

const entries = syntheticCatalog(10_000);
const typed = keystrokes(['wooden chair', 'mossy rock', 'barrel', 'rusty metal lamp', 'game ready', 'zzz', 'st']);

/** The obvious implementation: same scoring rules, nothing precomputed, full sort. */
function naiveSearch(query: string, limit = 60): Array<{ id: string; score: number }> {
  const words = [...new Set(query.toLowerCase().trim().split(/\s+/).filter(Boolean))];
  const patterns = words.map((word) => {
    const escaped = word.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    return {
      word,
      exact: new RegExp(`(^|[^\\p{L}\\p{N}])${escaped}($|[^\\p{L}\\p{N}])`, 'u'),
      prefix: new RegExp(`(^|[^\\p{L}\\p{N}])${escaped}`, 'u'),
    };
  });
  const kind = (value: string, p: (typeof patterns)[number]): MatchKind | null => {
    const v = value.toLowerCase();
    if (!v.includes(p.word)) return null;
    // A word with a separator in it (an id) is whole only as a whole value.
    if (/[^\p{L}\p{N}]/u.test(p.word)) return v === p.word ? 'exact' : v.startsWith(p.word) ? 'prefix' : 'substring';
    return p.exact.test(v) ? 'exact' : p.prefix.test(v) ? 'prefix' : 'substring';
  };
  const hits: Array<{ entry: CatalogEntry; score: number }> = [];
  for (const entry of entries) {
    const fields: Array<[MatchField, string]> = [
      ['name', entry.name],
      ['id', entry.id],
      ...entry.categories.map((c): [MatchField, string] => ['category', c]),
      ...entry.tags.map((t): [MatchField, string] => ['tag', t]),
    ];
    let score = 0;
    let ok = true;
    for (const pattern of patterns) {
      let best = 0;
      for (const [field, value] of fields) {
        const k = kind(value, pattern);
        if (k) best = Math.max(best, matchScore(field, k));
      }
      if (best === 0) {
        ok = false;
        break;
      }
      score += best;
    }
    if (!ok) continue;
    if (entry.name.toLowerCase() === words.join(' ')) score += 1000;
    hits.push({ entry, score });
  }
  hits.sort(
    (a, b) =>
      b.score - a.score ||
      b.entry.downloads - a.entry.downloads ||
      (a.entry.name < b.entry.name ? -1 : a.entry.name > b.entry.name ? 1 : a.entry.id < b.entry.id ? -1 : 1),
  );
  return hits.slice(0, limit).map((h) => ({ id: h.entry.id, score: h.score }));
}

// The three must agree before any of them is timed.
const check = new SearchIndex(entries, { narrow: true });
for (const query of typed) {
  const fast = check.search(query).hits.map((h) => ({ id: h.entry.id, score: h.score }));
  const slow = naiveSearch(query);
  if (JSON.stringify(fast) !== JSON.stringify(slow)) throw new Error(`SearchIndex and the naive search disagree on "${query}"`);
}

const plain = new SearchIndex(entries, { narrow: false });
const typing = new SearchIndex(entries, { narrow: true });
let a = 0;
let b = 0;
let c = 0;
const results = compare(
  [
    { name: 'naive scan + full sort', run: () => naiveSearch(typed[a++ % typed.length]!), callsPerRound: typed.length },
    { name: 'SearchIndex (no narrowing)', run: () => plain.search(typed[b++ % typed.length]!), callsPerRound: typed.length * 4 },
    { name: 'SearchIndex while typing', run: () => typing.search(typed[c++ % typed.length]!), callsPerRound: typed.length * 4 },
  ],
  { rounds: 9 },
);
printComparison(
  `search per keystroke, ${entries.length.toLocaleString('en-US')} entries, ${typed.length} keystrokes per round (median)`,
  results,
);

// The figure that matters to a person typing: the slow keystrokes, not the average.
const samples: number[] = [];
const fresh = new SearchIndex(entries);
for (let round = 0; round < 20; round++) {
  for (const query of typed) {
    const start = performance.now();
    fresh.search(query);
    samples.push(performance.now() - start);
  }
}
console.log(
  `SearchIndex while typing: p50 ${formatMs(percentile(samples, 50))}, p95 ${formatMs(percentile(samples, 95))}, max ${formatMs(Math.max(...samples))} per keystroke (target < 2 ms)`,
);
const build: number[] = [];
for (let i = 0; i < 5; i++) {
  const start = performance.now();
  new SearchIndex(entries);
  build.push(performance.now() - start);
}
console.log(`building the index once per catalog: ${formatMs(percentile(build, 50))}`);

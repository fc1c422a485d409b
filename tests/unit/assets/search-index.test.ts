import { describe, expect, it } from 'vitest';
import { Mulberry32 } from '../../../src/core/rng.ts';
import type { CatalogEntry } from '../../../src/assets/polyhaven-types.ts';
import { matchScore, queryWords, SearchIndex, type MatchField, type MatchKind } from '../../../src/assets/search-index.ts';

function entry(id: string, name: string, categories: string[] = [], tags: string[] = [], downloads = 0): CatalogEntry {
  return { id, name, categories, tags, thumbnailUrl: null, downloads, authors: [] };
}

const ids = (index: SearchIndex, query: string): string[] => index.search(query).hits.map((h) => h.entry.id);

describe('search scoring', () => {
  it('ranks name over id over category over tag, whatever the downloads', () => {
    const index = new SearchIndex([
      entry('tagged', 'Tagged Thing', [], ['lamp'], 9000),
      entry('categorised', 'Categorised Thing', ['lamp'], [], 7000),
      entry('lamp_01', 'Something Else', [], [], 5000),
      entry('named', 'Desk Lamp', [], [], 10),
    ]);
    expect(ids(index, 'lamp')).toEqual(['named', 'lamp_01', 'categorised', 'tagged']);
  });

  it('ranks exact over prefix over substring within a field', () => {
    const index = new SearchIndex([
      entry('a', 'Bedrock Slab', [], [], 900), // substring
      entry('b', 'Rocking Chair', [], [], 800), // prefix of a word
      entry('c', 'Mossy Rock', [], [], 1), // exact word
    ]);
    expect(ids(index, 'rock')).toEqual(['c', 'b', 'a']);
    const hits = index.search('rock').hits;
    expect(hits.map((h) => h.matches[0]!.kind)).toEqual(['exact', 'prefix', 'substring']);
  });

  it('puts a name substring above an exact id, and an exact tag below a category substring', () => {
    const index = new SearchIndex([
      entry('drum', 'Oil Barrel'),
      entry('x', 'Eardrums Model'),
      entry('y', 'Thing', ['drumkits']),
      entry('z', 'Other', [], ['drum']),
    ]);
    expect(ids(index, 'drum')).toEqual(['x', 'drum', 'y', 'z']);
    expect(matchScore('name', 'substring')).toBeGreaterThan(matchScore('id', 'exact'));
    expect(matchScore('category', 'substring')).toBeGreaterThan(matchScore('tag', 'exact'));
  });

  it('breaks ties by downloads, then name', () => {
    const index = new SearchIndex([entry('a', 'Chair B', [], [], 5), entry('b', 'Chair A', [], [], 5), entry('c', 'Chair C', [], [], 50)]);
    expect(ids(index, 'chair')).toEqual(['c', 'b', 'a']);
  });

  it('needs every word to match somewhere (AND) and sums their scores', () => {
    const index = new SearchIndex([
      entry('a', 'Wooden Crate', ['props'], ['storage']),
      entry('b', 'Wooden Barrel', ['props'], []),
      entry('c', 'Crate Lid', [], ['wooden']),
    ]);
    expect(ids(index, 'wooden crate')).toEqual(['a', 'c']);
    expect(ids(index, 'crate wood storage')).toEqual(['a']);
    expect(index.search('wood zebra').total).toBe(0);
  });

  it('gives the whole name typed in full the top spot; a full id wins as an exact id match', () => {
    const index = new SearchIndex([entry('rock_01', 'Rock 01'), entry('rock_01_b', 'Rock 01 Mossy', [], [], 9999)]);
    expect(ids(index, 'rock 01')[0]).toBe('rock_01');
    expect(ids(index, 'rock_01')[0]).toBe('rock_01');
  });

  it('normalises case and whitespace; an empty query lists everything by downloads', () => {
    const index = new SearchIndex([entry('a', 'Anvil', [], [], 1), entry('b', 'Bucket', [], [], 3), entry('c', 'Chest', [], [], 2)]);
    expect(ids(index, '  ANVIL ')).toEqual(['a']);
    expect(queryWords('  Big   big RED ')).toEqual(['big', 'red']);
    expect(ids(index, '')).toEqual(['b', 'c', 'a']);
  });

  it('returns at most `limit` hits but counts every match', () => {
    const many = Array.from({ length: 500 }, (_, i) => entry(`item_${i}`, `Item ${i}`, [], [], i));
    const index = new SearchIndex(many, { limit: 60 });
    const result = index.search('item');
    expect(result.total).toBe(500);
    expect(result.hits).toHaveLength(60);
    expect(result.hits[0]!.entry.id).toBe('item_499');
    expect(result.hits[59]!.entry.id).toBe('item_440');
  });

  it('narrowing a query gives exactly what a full scan gives (and scans fewer entries)', { timeout: 30_000 }, () => {
    const rng = new Mulberry32(7);
    const words = ['oak', 'pine', 'rock', 'rocky', 'stone', 'crate', 'barrel', 'chair', 'table', 'lamp', 'mossy', 'old', 'new'];
    const pick = (): string => words[rng.int(words.length)]!;
    const entries = Array.from({ length: 2000 }, (_, i) =>
      entry(`${pick()}_${pick()}_${i}`, `${pick()} ${pick()} ${i}`, [pick()], [pick(), pick()], rng.int(1000)),
    );
    const typed = new SearchIndex(entries);
    const scanning = new SearchIndex(entries, { narrow: false });
    for (const query of ['r', 'ro', 'roc', 'rock', 'rock ', 'rock m', 'rock mo', 'rock mossy', 'c', 'ch', 'cha']) {
      const incremental = typed.search(query);
      const fresh = scanning.search(query);
      expect(incremental.total).toBe(fresh.total);
      expect(incremental.hits.map((h) => [h.entry.id, h.score])).toEqual(fresh.hits.map((h) => [h.entry.id, h.score]));
      if (query === 'rock mossy') expect(incremental.scanned).toBeLessThan(fresh.scanned);
    }
  });

  it('keeps the same top hits as a brute-force scorer with a full sort (pruning loses nothing)', { timeout: 30_000 }, () => {
    const rng = new Mulberry32(99);
    const words = ['oak', 'pine', 'rock', 'rocky', 'stone', 'crate', 'barrel', 'chair', 'old', 'wood', 'wooden', 'w', 'moss'];
    const pick = (): string => words[rng.int(words.length)]!;
    const entries = Array.from({ length: 1500 }, (_, i) =>
      entry(`${pick()}_${i}`, `${pick()} ${pick()}`, [pick()], [pick(), pick()], rng.int(20)),
    );
    // An independent reference for match kinds: regular expressions over each value.
    const esc = (w: string): string => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const kind = (value: string, word: string): MatchKind | null => {
      if (!value.includes(word)) return null;
      if (/[^\p{L}\p{N}]/u.test(word)) return value === word ? 'exact' : value.startsWith(word) ? 'prefix' : 'substring';
      if (new RegExp(`(^|[^\\p{L}\\p{N}])${esc(word)}($|[^\\p{L}\\p{N}])`, 'u').test(value)) return 'exact';
      return new RegExp(`(^|[^\\p{L}\\p{N}])${esc(word)}`, 'u').test(value) ? 'prefix' : 'substring';
    };
    const brute = (query: string, limit: number): Array<[string, number]> => {
      const qw = queryWords(query);
      const scored: Array<{ e: CatalogEntry; score: number }> = [];
      for (const e of entries) {
        const fields: Array<[MatchField, string]> = [
          ['name', e.name.toLowerCase()],
          ['id', e.id],
          ...e.categories.map((c): [MatchField, string] => ['category', c]),
          ...e.tags.map((t): [MatchField, string] => ['tag', t]),
        ];
        let score = 0;
        for (const w of qw) {
          const best = Math.max(0, ...fields.map(([f, v]) => (kind(v, w) ? matchScore(f, kind(v, w)!) : 0)));
          if (best === 0) score = Number.NaN;
          score += best;
        }
        if (Number.isNaN(score)) continue;
        if (e.name.toLowerCase() === qw.join(' ')) score += 1000;
        scored.push({ e, score });
      }
      scored.sort(
        (a, b) =>
          b.score - a.score ||
          b.e.downloads - a.e.downloads ||
          (a.e.name < b.e.name ? -1 : a.e.name > b.e.name ? 1 : a.e.id < b.e.id ? -1 : 1),
      );
      return scored.slice(0, limit).map((x) => [x.e.id, x.score]);
    };
    for (const limit of [1, 5, 60]) {
      const index = new SearchIndex(entries, { limit, narrow: false });
      for (const query of [
        'w',
        'wo',
        'rock',
        'r',
        'old oak',
        'o',
        'stone crate',
        'moss',
        'zz',
        '',
        '1',
        '12',
        '_',
        'k_1',
        'e',
        'a b',
        'ood',
      ]) {
        const result = index.search(query);
        expect(result.hits.map((h) => [h.entry.id, h.score])).toEqual(brute(query, limit));
      }
    }
  });
});

import type { CatalogEntry } from './polyhaven-types.ts';

/**
 * Client-side catalog search. Each query word is matched against an entry's fields and scored by
 * where it matched first and how well second:
 *
 *   field:  name  >  id  >  category  >  tag
 *   kind:   exact (a whole word, or the whole field)  >  prefix of a word  >  substring
 *
 * so a word found anywhere in the name beats an exact id match, and within a field an exact word
 * beats a prefix beats a substring. Every query word must match somewhere (AND); an entry's score
 * is the sum over words, plus a bonus when the whole query equals the whole name. Ties go to the
 * more downloaded asset, then to the name in alphabetical order, so results are stable.
 *
 * Cheap enough to run on every keystroke over 10,000 entries (see bench/assets): each entry keeps
 * one lower-cased haystack that rejects most entries with a single `includes`, only the top
 * `limit` results are kept sorted, and a query that extends the previous one only re-checks the
 * previous matches.
 */

export type MatchField = 'name' | 'id' | 'category' | 'tag';
export type MatchKind = 'exact' | 'prefix' | 'substring';

const FIELD_RANK: Record<MatchField, number> = { name: 3, id: 2, category: 1, tag: 0 };
const KIND_RANK: Record<MatchKind, number> = { exact: 2, prefix: 1, substring: 0 };

/** Score of one query word matching `kind` in `field`: 1 (tag substring) … 12 (name exact). */
export function matchScore(field: MatchField, kind: MatchKind): number {
  return FIELD_RANK[field] * 3 + KIND_RANK[kind] + 1;
}

/**
 * Bonus when the whole query equals the whole name: outranks any sum of word scores. (No such
 * bonus for ids: a typed id already wins as an exact id match unless a name matches, and names
 * come first.)
 */
const WHOLE_NAME_BONUS = 1000;

export interface SearchHit {
  entry: CatalogEntry;
  score: number;
  /** Where each query word matched best, in query order (for highlighting and tests). */
  matches: Array<{ word: string; field: MatchField; kind: MatchKind }>;
}

export interface SearchResult {
  query: string;
  /** Query words after normalising. */
  words: string[];
  /** How many entries matched in all. */
  total: number;
  /** The best `limit` hits, best first. */
  hits: SearchHit[];
  /** Entries scored in this query (the rest were rejected by the haystack or the narrowed set). */
  scanned: number;
}

interface Field {
  field: MatchField;
  /** Lower-cased whole value. */
  value: string;
  /** Its words (split on anything that is not a letter or digit). */
  words: string[];
}

interface Indexed {
  entry: CatalogEntry;
  haystack: string;
  fields: Field[];
  nameLower: string;
}

export interface SearchIndexOptions {
  /** Hits returned per query. Default 60 (the cards the page renders). */
  limit?: number;
}

/** Lower-cases, trims and splits a query into distinct words. */
export function queryWords(query: string): string[] {
  const words = query.toLowerCase().trim().split(/\s+/).filter(Boolean);
  return [...new Set(words)];
}

const WORD_SPLIT = /[^\p{L}\p{N}]+/u;

function field(fieldName: MatchField, value: string): Field {
  const lower = value.toLowerCase();
  return { field: fieldName, value: lower, words: lower.split(WORD_SPLIT).filter(Boolean) };
}

function kindOf(f: Field, word: string): MatchKind | null {
  if (!f.value.includes(word)) return null;
  if (f.value === word) return 'exact';
  let prefix = f.value.startsWith(word);
  for (const w of f.words) {
    if (w === word) return 'exact';
    if (!prefix && w.startsWith(word)) prefix = true;
  }
  return prefix ? 'prefix' : 'substring';
}

/** Orders hits: higher score first, then more downloads, then name A→Z, then id. */
export function compareHits(a: SearchHit, b: SearchHit): number {
  return b.score - a.score || b.entry.downloads - a.entry.downloads || (a.entry.name < b.entry.name ? -1 : a.entry.name > b.entry.name ? 1 : 0) || (a.entry.id < b.entry.id ? -1 : 1);
}

export class SearchIndex {
  readonly limit: number;
  private readonly items: Indexed[];
  private lastQueryKey: string | null = null;
  private lastMatches: number[] | null = null;

  constructor(entries: readonly CatalogEntry[], options: SearchIndexOptions = {}) {
    this.limit = options.limit ?? 60;
    this.items = entries.map((entry) => {
      const fields = [field('name', entry.name), field('id', entry.id), ...entry.categories.map((c) => field('category', c)), ...entry.tags.map((t) => field('tag', t))];
      return { entry, fields, haystack: fields.map((f) => f.value).join('\u0001'), nameLower: entry.name.toLowerCase() };
    });
  }

  get size(): number {
    return this.items.length;
  }

  /** Scores one entry against the query words; null when a word matches nowhere. */
  private score(item: Indexed, words: string[], whole: string): SearchHit | null {
    let score = 0;
    const matches: SearchHit['matches'] = [];
    for (const word of words) {
      if (!item.haystack.includes(word)) return null;
      let best = 0;
      let bestField: MatchField = 'tag';
      let bestKind: MatchKind = 'substring';
      for (const f of item.fields) {
        // Fields are ordered name, id, categories, tags: nothing later can beat an exact match.
        if (best >= matchScore(f.field, 'exact')) break;
        const kind = kindOf(f, word);
        if (kind === null) continue;
        const s = matchScore(f.field, kind);
        if (s > best) {
          best = s;
          bestField = f.field;
          bestKind = kind;
        }
      }
      // The haystack joins fields with \u0001, so a word containing it cannot match across fields.
      if (best === 0) return null;
      score += best;
      matches.push({ word, field: bestField, kind: bestKind });
    }
    if (item.nameLower === whole) score += WHOLE_NAME_BONUS;
    return { entry: item.entry, score, matches };
  }

  /**
   * Searches the catalog. An empty query lists everything, most downloaded first.
   * @param limit hits to return (default the index's limit)
   */
  search(query: string, limit = this.limit): SearchResult {
    const words = queryWords(query);
    const key = words.length ? query.toLowerCase().trim().replace(/\s+/g, ' ') : '';
    const whole = key;
    // A query that extends the last one can only match a subset of its matches (every word of the
    // new query contains a word of the old one), so only those need scoring.
    const narrowed = this.lastQueryKey !== null && this.lastQueryKey !== '' && key.startsWith(this.lastQueryKey) && this.lastMatches !== null;
    const candidates = narrowed ? this.lastMatches! : null;
    const count = candidates ? candidates.length : this.items.length;
    const top: SearchHit[] = [];
    const matched: number[] = [];
    for (let k = 0; k < count; k++) {
      const i = candidates ? candidates[k]! : k;
      const item = this.items[i]!;
      const hit = words.length ? this.score(item, words, whole) : { entry: item.entry, score: 0, matches: [] };
      if (!hit) continue;
      matched.push(i);
      insertTop(top, hit, limit);
    }
    this.lastQueryKey = key;
    this.lastMatches = matched;
    return { query, words, total: matched.length, hits: top, scanned: count };
  }
}

/** Keeps `top` sorted best-first and at most `limit` long. */
function insertTop(top: SearchHit[], hit: SearchHit, limit: number): void {
  if (limit <= 0) return;
  if (top.length === limit && compareHits(hit, top[limit - 1]!) >= 0) return;
  let lo = 0;
  let hi = top.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (compareHits(hit, top[mid]!) < 0) hi = mid;
    else lo = mid + 1;
  }
  top.splice(lo, 0, hit);
  if (top.length > limit) top.pop();
}

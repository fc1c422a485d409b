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
  /** Lower-cased whole value. */
  value: string;
  /** Its words (split on anything that is not a letter or digit). */
  words: string[];
}

interface Indexed {
  entry: CatalogEntry;
  /** Every field's value, lower-cased, joined by \u0001: one `includes` rejects most entries. */
  haystack: string;
  /** Fields in precedence order (name, id, categories, tags); each kind may hold several values. */
  groups: Array<{ field: MatchField; values: Field[]; /** Values joined by \u0001, for a quick bound. */ text: string }>;
  nameLower: string;
}

export interface SearchIndexOptions {
  /** Hits returned per query. Default 60 (the cards the page renders). */
  limit?: number;
  /**
   * Re-check only the previous matches when a query extends the previous one (typing). Default
   * true; false scans every entry every time (benchmarks compare the two).
   */
  narrow?: boolean;
}

/** Lower-cases, trims and splits a query into distinct words. */
export function queryWords(query: string): string[] {
  const words = query.toLowerCase().trim().split(/\s+/).filter(Boolean);
  return [...new Set(words)];
}

const WORD_SPLIT = /[^\p{L}\p{N}]+/u;

function field(value: string): Field {
  const lower = value.toLowerCase();
  return { value: lower, words: lower.split(WORD_SPLIT).filter(Boolean) };
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
  private readonly narrow: boolean;
  private readonly items: Indexed[];
  private lastQueryKey: string | null = null;
  private lastMatches: Int32Array | null = null;
  private spare = new Int32Array(0);

  constructor(entries: readonly CatalogEntry[], options: SearchIndexOptions = {}) {
    this.limit = options.limit ?? 60;
    this.narrow = options.narrow ?? true;
    // Entries in tie-break order (most downloaded, then name, then id): a later entry with an
    // equal score never outranks an earlier one, so once the top list is full an entry must
    // score strictly higher than its last hit, which lets most entries skip scoring.
    const ordered = [...entries].sort((a, b) => b.downloads - a.downloads || (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const text = ordered.map((entry) => {
      const group = (name: MatchField, values: Field[]) => ({ field: name, values, text: values.map((v) => v.value).join('\u0001') });
      const groups: Indexed['groups'] = [group('name', [field(entry.name)]), group('id', [field(entry.id)]), group('category', entry.categories.map(field)), group('tag', entry.tags.map(field))];
      return { groups, haystack: groups.map((g) => g.text).join('\u0001'), nameLower: entry.name.toLowerCase() };
    });
    // Rebuild every string the scan reads in one go. Strings made by toLowerCase/split/join are
    // scattered (and some are slices or concatenations of others); `includes` over the copies
    // JSON.parse makes ran 5–10× faster in a micro-benchmark, and this scan runs on every keystroke.
    const packed = JSON.parse(JSON.stringify(text)) as Array<Omit<Indexed, 'entry'>>;
    this.items = packed.map((item, i) => ({ ...item, entry: ordered[i]! }));
  }

  get size(): number {
    return this.items.length;
  }

  private byEntry: Map<CatalogEntry, Indexed> | null = null;

  private itemOf(entry: CatalogEntry): Indexed {
    this.byEntry ??= new Map(this.items.map((item) => [item.entry, item]));
    return this.byEntry.get(entry)!;
  }

  /**
   * How well `word` matches `item`: its {@link matchScore}, 0 for no match. Field kinds are tried
   * in precedence order and the first kind with any match decides (a later kind cannot outrank
   * it); within it, the best of its values. Returns a number, not an object: this runs for every
   * candidate on every keystroke, and allocations there cost more than the matching.
   */
  private wordScore(item: Indexed, word: string): number {
    for (const group of item.groups) {
      let best = -1;
      for (const value of group.values) {
        const kind = kindOf(value, word);
        if (kind === null) continue;
        const rank = KIND_RANK[kind];
        if (rank === 2) return matchScore(group.field, 'exact');
        if (rank > best) best = rank;
      }
      if (best >= 0) return matchScore(group.field, best === 1 ? 'prefix' : 'substring');
    }
    return 0;
  }

  /**
   * The most `item` could score: per word, an exact match in the first field kind that contains
   * it at all. One `includes` per kind instead of matching every value: while the top list is
   * full, entries whose bound cannot beat its last hit are counted but not scored.
   */
  private scoreBound(item: Indexed, words: string[], whole: string): number {
    let bound = item.nameLower === whole ? WHOLE_NAME_BONUS : 0;
    for (const word of words) {
      let best = 0;
      for (const group of item.groups) {
        if (group.text.includes(word)) {
          best = matchScore(group.field, 'exact');
          break;
        }
      }
      bound += best;
    }
    return bound;
  }

  /** Scores one entry against the query words; 0 when a word matches nowhere. */
  private scoreOf(item: Indexed, words: string[], whole: string): number {
    let score = 0;
    for (const word of words) {
      // The haystack joins fields with \u0001, so a word cannot match across two fields.
      if (!item.haystack.includes(word)) return 0;
      const s = this.wordScore(item, word);
      if (s === 0) return 0;
      score += s;
    }
    return item.nameLower === whole ? score + WHOLE_NAME_BONUS : score;
  }

  /** Where `word` matched best (for the hits returned; see {@link wordScore}). */
  private matchOf(item: Indexed, word: string): { word: string; field: MatchField; kind: MatchKind } {
    const score = this.wordScore(item, word) - 1;
    const field = (['tag', 'category', 'id', 'name'] as const)[Math.floor(score / 3)]!;
    const kind = (['substring', 'prefix', 'exact'] as const)[score % 3]!;
    return { word, field, kind };
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
    const narrowed = this.narrow && this.lastQueryKey !== null && this.lastQueryKey !== '' && key.startsWith(this.lastQueryKey) && this.lastMatches !== null;
    const candidates = narrowed ? this.lastMatches! : null;
    const count = candidates ? candidates.length : this.items.length;
    const top: SearchHit[] = [];
    // Two match buffers used in turn: this query's matches become the next query's candidates.
    const matched = this.spare.length >= this.items.length ? this.spare : new Int32Array(this.items.length);
    let total = 0;
    for (let k = 0; k < count; k++) {
      const i = candidates ? candidates[k]! : k;
      const item = this.items[i]!;
      if (words.length === 0) {
        matched[total++] = i;
        if (top.length < limit) top.push({ entry: item.entry, score: 0, matches: [] }); // already in order
        continue;
      }
      // Every word somewhere in the entry means a match (the haystack's separators keep a word
      // inside one value); scoring is only needed for entries that could still enter the top list.
      let all = true;
      for (const word of words) if (!item.haystack.includes(word)) (all = false);
      if (!all) continue;
      matched[total++] = i;
      const worst = top.length === limit ? top[limit - 1]! : null;
      if (worst && this.scoreBound(item, words, whole) <= worst.score) continue;
      const score = this.scoreOf(item, words, whole);
      if (worst && score <= worst.score) continue;
      insertTop(top, { entry: item.entry, score, matches: [] }, limit);
    }
    // Where each word matched, only for the hits returned (not for every match).
    for (const hit of top) {
      const item = this.itemOf(hit.entry);
      hit.matches = words.map((word) => this.matchOf(item, word));
    }
    this.spare = this.lastMatches && this.lastMatches.buffer !== matched.buffer ? new Int32Array(this.lastMatches.buffer as ArrayBuffer) : new Int32Array(0);
    this.lastQueryKey = key;
    this.lastMatches = matched.subarray(0, total);
    return { query, words, total, hits: top, scanned: count };
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

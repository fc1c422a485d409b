import { withDefaults } from '../core/options.ts';
import type { CatalogEntry } from './polyhaven-types.ts';

/**
 * Client-side catalog search. Each query word is matched against an entry's fields and scored by
 * where it matched first and how well second:
 *
 *   field:  name  >  id  >  category  >  tag
 *   kind:   exact (a whole word)  >  prefix of a word  >  substring
 *
 * Words are separated by anything that is not a letter or digit and by the ends of a value; a
 * query word containing a separator (an id like "rock_01") is exact only as a whole value. So a
 * word found anywhere in the name beats an exact id match, and within a field an exact word beats
 * a prefix beats a substring. Every query word must match somewhere (AND); an entry's score is the
 * sum over words, plus a bonus when the whole query equals the whole name. Ties go to the more
 * downloaded asset, then the name, then the id, so results are stable.
 *
 * Cheap enough to run on every keystroke over 10,000 entries (bench/assets/search.bench.ts):
 * entries are kept in tie-break order so a full top list raises the bar strictly; character,
 * word-start and word-length masks reject entries and bound their scores without touching
 * strings; only the top `limit` results are kept sorted; and a query that extends the previous
 * one only re-checks the previous matches.
 */

export type MatchField = 'name' | 'id' | 'category' | 'tag';
/** How a query word matched a field: the whole of a word, the start of one, or anywhere in it. */
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

/** One entry that matched a query. */
export interface SearchHit {
  /** The catalog entry. */
  entry: CatalogEntry;
  /** Its score: the sum of each query word's best {@link matchScore}, plus a bonus when the query is the whole name. */
  score: number;
  /** Where each query word matched best, in query order (for highlighting and tests). */
  matches: Array<{
    /** The query word. */
    word: string;
    /** The field it matched best in. */
    field: MatchField;
    /** How it matched there. */
    kind: MatchKind;
  }>;
}

/** What {@link SearchIndex.search} found. */
export interface SearchResult {
  /** The query as given. */
  query: string;
  /** Query words after normalising. */
  words: string[];
  /** How many entries matched in all. */
  total: number;
  /** The best `limit` hits, best first. */
  hits: SearchHit[];
  /** Entries examined in this query (all of them, or the previous matches when narrowing). */
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
  /** Every field's value, lower-cased, joined by \u0001 (so no word spans two values). */
  haystack: string;
  /** Fields in precedence order (name, id, categories, tags); each kind may hold several values. */
  groups: Array<{ field: MatchField; values: Field[]; /** The values joined by \u0001, what matching reads. */ text: string }>;
  nameLower: string;
}

/** Options of a {@link SearchIndex}. */
export interface SearchIndexOptions {
  /** Hits returned per query. Default 60 (the cards the page renders). */
  limit?: number;
  /**
   * Re-check only the previous matches when a query extends the previous one (typing). Default
   * true; false scans every entry every time (benchmarks compare the two).
   */
  narrow?: boolean;
}

const SEARCH_INDEX_DEFAULTS: Required<SearchIndexOptions> = { limit: 60, narrow: true };

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

const WORD_CHAR = /[\p{L}\p{N}]/u;

/** Letters and digits make words; everything else (spaces, _, -, the \u0001 between values) separates them. */
function isWordChar(code: number): boolean {
  if (code < 128) return (code >= 97 && code <= 122) || (code >= 48 && code <= 57) || (code >= 65 && code <= 90);
  return WORD_CHAR.test(String.fromCharCode(code));
}

/**
 * How `word` occurs in `text` (one field kind's values joined by \u0001): 'exact' when some
 * occurrence is a whole word (separators or the ends of a value on both sides), 'prefix' when one
 * starts a word, else 'substring'; null when absent. A word that itself contains separators
 * ("rock_01") is a whole word only as a whole value and a prefix only at a value's start. One
 * `indexOf` walk, no splitting.
 */
export function matchKindIn(text: string, word: string): MatchKind | null {
  let at = text.indexOf(word);
  if (at < 0) return null;
  let spans = false;
  for (let i = 0; i < word.length && !spans; i++) spans = !isWordChar(word.charCodeAt(i));
  const boundary = spans ? (code: number) => code === 1 : (code: number) => !isWordChar(code);
  let best: MatchKind = 'substring';
  while (at >= 0) {
    if (at === 0 || boundary(text.charCodeAt(at - 1))) {
      const after = at + word.length;
      if (after === text.length || boundary(text.charCodeAt(after))) return 'exact';
      best = 'prefix';
    }
    at = text.indexOf(word, at + 1);
  }
  return best;
}

/**
 * A character's bit in the 32-bit masks that pre-filter the scan: letters a–z have a bit each
 * (exact), digits share five bits, everything else shares the top bit. Masks only ever rule
 * matches out, so shared bits cost a string check, never a wrong answer.
 */
function charBit(code: number): number {
  if (code >= 97 && code <= 122) return 1 << (code - 97);
  if (code >= 48 && code <= 57) return 1 << (26 + ((code - 48) % 5));
  return 1 << 31;
}

function maskOf(text: string): number {
  let mask = 0;
  for (let i = 0; i < text.length; i++) mask |= charBit(text.charCodeAt(i));
  return mask;
}

const isLetter = (code: number): boolean => code >= 97 && code <= 122;
const isAlnum = (code: number): boolean => isLetter(code) || (code >= 48 && code <= 57);

/** Per field kind and entry: which characters occur, start a word, or are a one-letter word; which word lengths occur. */
interface Masks {
  chars: Int32Array;
  starts: Int32Array;
  singles: Int32Array;
  /** Bit n set when a word (or a whole value) is n characters long; bit 31 for 31 and longer. */
  lengths: Int32Array;
}

const lengthBit = (length: number): number => 1 << Math.min(31, length);

/** A query word with its mask, ready for the scan. */
interface Word {
  text: string;
  mask: number;
  first: number;
  /** {@link lengthBit} of its length. */
  length: number;
  /** One letter a–z: masks alone decide contains / exact / prefix. */
  letter: boolean;
  /** Starts with a letter or digit: the word-start mask can rule out prefix and exact. */
  alnumStart: boolean;
}

/** Orders hits: higher score first, then more downloads, then name A→Z, then id. */
export function compareHits(a: SearchHit, b: SearchHit): number {
  return (
    b.score - a.score ||
    b.entry.downloads - a.entry.downloads ||
    (a.entry.name < b.entry.name ? -1 : a.entry.name > b.entry.name ? 1 : 0) ||
    (a.entry.id < b.entry.id ? -1 : 1)
  );
}

/** Client-side search over a Poly Haven catalog: tokens, prefixes and tags, ranked by match then downloads. */
export class SearchIndex {
  /** Hits returned per query. */
  readonly limit: number;
  private readonly narrow: boolean;
  private readonly items: Indexed[];
  /** Characters anywhere in each entry, by item position. */
  private readonly allMasks: Int32Array;
  /** Masks per field kind (name, id, category, tag), by item position. */
  private readonly groupMasks: Masks[];
  private lastQueryKey: string | null = null;
  private lastMatches: Int32Array | null = null;
  private spare = new Int32Array(0);

  constructor(entries: readonly CatalogEntry[], options: SearchIndexOptions = {}) {
    ({ limit: this.limit, narrow: this.narrow } = withDefaults(SEARCH_INDEX_DEFAULTS, options));
    // Entries in tie-break order (most downloaded, then name, then id): a later entry with an
    // equal score never outranks an earlier one, so once the top list is full an entry must
    // score strictly higher than its last hit, which lets most entries skip scoring.
    const ordered = [...entries].sort(
      (a, b) => b.downloads - a.downloads || (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );
    const text = ordered.map((entry) => {
      const group = (name: MatchField, values: Field[]) => ({ field: name, values, text: values.map((v) => v.value).join('\u0001') });
      const groups: Indexed['groups'] = [
        group('name', [field(entry.name)]),
        group('id', [field(entry.id)]),
        group('category', entry.categories.map(field)),
        group('tag', entry.tags.map(field)),
      ];
      return { groups, haystack: groups.map((g) => g.text).join('\u0001'), nameLower: entry.name.toLowerCase() };
    });
    // Rebuild every string the scan reads in one go. Strings made by toLowerCase/split/join are
    // scattered (and some are slices or concatenations of others); `includes` over the copies
    // JSON.parse makes ran 5–10× faster in a micro-benchmark, and this scan runs on every keystroke.
    const packed = JSON.parse(JSON.stringify(text)) as Array<Omit<Indexed, 'entry'>>;
    this.items = packed.map((item, i) => ({ ...item, entry: ordered[i]! }));
    const n = this.items.length;
    this.allMasks = new Int32Array(n);
    this.groupMasks = [0, 1, 2, 3].map(() => ({
      chars: new Int32Array(n),
      starts: new Int32Array(n),
      singles: new Int32Array(n),
      lengths: new Int32Array(n),
    }));
    this.items.forEach((item, i) => {
      item.groups.forEach((group, g) => {
        const masks = this.groupMasks[g]!;
        for (const value of group.values) {
          masks.chars[i]! |= maskOf(value.value);
          if (value.value.length) masks.starts[i]! |= charBit(value.value.charCodeAt(0));
          masks.lengths[i]! |= lengthBit(value.value.length);
          for (const w of value.words) {
            masks.starts[i]! |= charBit(w.charCodeAt(0));
            masks.lengths[i]! |= lengthBit(w.length);
            if (w.length === 1) masks.singles[i]! |= charBit(w.charCodeAt(0));
          }
        }
        this.allMasks[i]! |= masks.chars[i]!;
      });
    });
  }

  /** Entries indexed. */
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
      const kind = matchKindIn(group.text, word);
      if (kind) return matchScore(group.field, kind);
    }
    return 0;
  }

  /**
   * The most the entry at position `i` could score: per word, the first field kind that contains
   * it decides the field; the masks decide the kind (exactly for one-letter words; otherwise
   * "exact" unless no word there starts with the word's first character, which leaves only
   * "substring"). While the top list is full, entries whose bound cannot beat its last hit are
   * counted but never scored.
   */
  private scoreBound(i: number, item: Indexed, words: Word[], whole: string): number {
    let bound = item.nameLower === whole ? WHOLE_NAME_BONUS : 0;
    for (const word of words) {
      for (let g = 0; g < 4; g++) {
        const masks = this.groupMasks[g]!;
        if ((masks.chars[i]! & word.mask) !== word.mask) continue;
        const group = item.groups[g]!;
        if (!word.letter && !group.text.includes(word.text)) continue;
        let kind: MatchKind;
        if (word.letter) kind = masks.singles[i]! & word.first ? 'exact' : masks.starts[i]! & word.first ? 'prefix' : 'substring';
        else if (word.alnumStart && !(masks.starts[i]! & word.first)) kind = 'substring';
        // A whole-word match needs a word (or value) of the same length.
        else kind = masks.lengths[i]! & word.length ? 'exact' : 'prefix';
        bound += matchScore(group.field, kind);
        break;
      }
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
    const prepared: Word[] = words.map((text) => {
      const first = text.charCodeAt(0);
      return {
        text,
        mask: maskOf(text),
        first: charBit(first),
        length: lengthBit(text.length),
        letter: text.length === 1 && isLetter(first),
        alnumStart: isAlnum(first),
      };
    });
    const key = words.length ? query.toLowerCase().trim().replace(/\s+/g, ' ') : '';
    const whole = key;
    // A query that extends the last one can only match a subset of its matches (every word of the
    // new query contains a word of the old one), so only those need scoring.
    const narrowed =
      this.narrow &&
      this.lastQueryKey !== null &&
      this.lastQueryKey !== '' &&
      key.startsWith(this.lastQueryKey) &&
      this.lastMatches !== null;
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
      const all = this.allMasks[i]!;
      let contains = true;
      for (const word of prepared) {
        // A one-letter word is in the entry exactly when its bit is: no string check needed.
        if ((all & word.mask) !== word.mask || (!word.letter && !item.haystack.includes(word.text))) {
          contains = false;
          break;
        }
      }
      if (!contains) continue;
      matched[total++] = i;
      const worst = top.length === limit ? top[limit - 1]! : null;
      if (worst && this.scoreBound(i, item, prepared, whole) <= worst.score) continue;
      const score = this.scoreOf(item, words, whole);
      if (worst && score <= worst.score) continue;
      insertTop(top, { entry: item.entry, score, matches: [] }, limit);
    }
    // Where each word matched, only for the hits returned (not for every match).
    for (const hit of top) {
      const item = this.itemOf(hit.entry);
      hit.matches = words.map((word) => this.matchOf(item, word));
    }
    this.spare =
      this.lastMatches && this.lastMatches.buffer !== matched.buffer
        ? new Int32Array(this.lastMatches.buffer as ArrayBuffer)
        : new Int32Array(0);
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

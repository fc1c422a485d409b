import * as v from 'valibot';
import { isValidAssetId } from './asset-id.ts';
import { AssetError } from './errors.ts';
import type { CatalogEntry, PolyHavenModelFilesJson } from './polyhaven-types.ts';

/** The result of checking a catalog: usable entries and what was left out (and why). */
export interface ParsedCatalog {
  /** The usable entries, in the catalog's order. */
  entries: CatalogEntry[];
  /** Keys dropped because they are not valid asset ids or their value is not an asset. */
  rejected: Array<{
    /** The catalog key. */
    key: string;
    /** Why it was left out. */
    reason: string;
  }>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A list of strings, keeping only the strings of an array; anything else is an empty list. */
const StringList = v.fallback(
  v.pipe(
    v.array(v.unknown()),
    v.transform((list) => list.filter((item): item is string => typeof item === 'string')),
  ),
  [],
);

/**
 * One value of `GET /assets?t=models` (PolyHavenAssetJson) as a catalog entry: the name is required
 * (without one the entry is rejected); every other field falls back to empty when malformed, so a
 * change in a field Cairn only displays never hides an asset.
 */
const CatalogAsset = v.pipe(
  v.looseObject({
    name: v.string(),
    categories: StringList,
    category: v.fallback(v.optional(v.string()), undefined),
    tags: StringList,
    thumbnail_url: v.fallback(v.nullable(v.pipe(v.string(), v.regex(/^https?:\/\//i))), null),
    download_count: v.fallback(v.pipe(v.number(), v.finite()), 0),
    authors: v.fallback(
      v.pipe(
        v.custom<Record<string, unknown>>(isRecord),
        v.transform((authors) => Object.keys(authors)),
      ),
      [],
    ),
  }),
  v.transform((asset): Omit<CatalogEntry, 'id'> => {
    const categories = new Set(asset.categories.map((c) => c.toLowerCase()));
    if (asset.category !== undefined)
      for (const part of asset.category.split('/')) if (part.trim()) categories.add(part.trim().toLowerCase());
    return {
      name: asset.name,
      categories: [...categories],
      tags: asset.tags.map((t) => t.toLowerCase()),
      thumbnailUrl: asset.thumbnail_url ?? null,
      downloads: asset.download_count,
      authors: asset.authors,
    };
  }),
);

/**
 * Checks `GET /assets?t=models` (an object keyed by id) and turns it into entries. Entries whose
 * key is not a valid id are dropped and reported, so nothing downstream can request them; a body
 * that is not an object at all throws a `corrupt` {@link AssetError}.
 */
export function parseCatalog(json: unknown, source = 'the catalog'): ParsedCatalog {
  if (!isRecord(json)) throw new AssetError('corrupt', `${source} is not a JSON object keyed by asset id`);
  const entries: CatalogEntry[] = [];
  const rejected: ParsedCatalog['rejected'] = [];
  for (const [key, raw] of Object.entries(json)) {
    if (!isValidAssetId(key)) {
      rejected.push({ key, reason: 'not a valid asset id' });
      continue;
    }
    const asset = isRecord(raw) ? v.safeParse(CatalogAsset, raw) : null;
    if (!asset?.success) {
      rejected.push({ key, reason: 'no name' });
      continue;
    }
    entries.push({ id: key, ...asset.output });
  }
  return { entries, rejected };
}

/** Texture resolutions Poly Haven publishes, smallest first. */
export const RESOLUTIONS = ['1k', '2k', '4k', '8k', '16k'] as const;
/** One of {@link RESOLUTIONS}. */
export type Resolution = (typeof RESOLUTIONS)[number];

/** Where one resolution of a model's glTF lives, and the files it needs. */
export interface GltfDownload {
  /** The resolution these files are (the one asked for, or the nearest offered). */
  resolution: string;
  /** Absolute URL of the .gltf file. */
  url: string;
  /** Relative path written inside the glTF → absolute URL it really has on the CDN. */
  include: Record<string, string>;
  /** Total bytes of the glTF and everything it includes, when the API says. */
  bytes: number | null;
}

function resolutionRank(resolution: string): number {
  const known = (RESOLUTIONS as readonly string[]).indexOf(resolution);
  if (known >= 0) return known;
  const k = /^(\d+)k$/i.exec(resolution);
  return k ? Math.log2(Number(k[1])) : Number.POSITIVE_INFINITY;
}

/** The glTF resolutions a `/files/{id}` answer offers, smallest first. */
export function gltfResolutions(files: PolyHavenModelFilesJson | Record<string, unknown>): string[] {
  const gltf: Record<string, unknown> = isRecord(files.gltf) ? files.gltf : {};
  return Object.keys(gltf)
    .filter((res) => {
      const entry = gltf[res];
      return isRecord(entry) && isRecord(entry.gltf);
    })
    .sort((a, b) => resolutionRank(a) - resolutionRank(b));
}

function absoluteUrl(value: unknown): string | null {
  if (typeof value !== 'string') return null;
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url.href : null;
  } catch {
    return null;
  }
}

/**
 * Picks the glTF download for `wanted` resolution from a `/files/{id}` answer: that resolution if
 * offered, else the largest one below it, else the smallest one above it. Throws `no-gltf` when the
 * asset has no glTF, `corrupt` when the entry is malformed (a URL that is not absolute http(s)).
 */
export function pickGltfDownload(files: unknown, wanted: string, id = 'this asset'): GltfDownload {
  if (!isRecord(files)) throw new AssetError('corrupt', `the file list for ${id} is not a JSON object`);
  const available = gltfResolutions(files);
  if (available.length === 0)
    throw new AssetError('no-gltf', `${id} has no glTF download (formats offered: ${Object.keys(files).join(', ') || 'none'})`);
  const rank = resolutionRank(wanted);
  const below = available.filter((r) => resolutionRank(r) <= rank);
  const resolution = below.length > 0 ? below[below.length - 1]! : available[0]!;
  const byResolution = isRecord(files.gltf) ? files.gltf[resolution] : undefined;
  // gltfResolutions offered only resolutions whose entry has a `gltf` object.
  const file = isRecord(byResolution) && isRecord(byResolution.gltf) ? byResolution.gltf : {};
  const url = absoluteUrl(file.url);
  if (!url) throw new AssetError('corrupt', `the ${resolution} glTF of ${id} has no absolute http(s) URL`);
  const include: Record<string, string> = {};
  let bytes: number | null = typeof file.size === 'number' ? file.size : null;
  if (file.include !== undefined && !isRecord(file.include))
    throw new AssetError('corrupt', `the ${resolution} glTF of ${id} has an include list that is not an object`);
  for (const [path, entry] of Object.entries(isRecord(file.include) ? file.include : {})) {
    const target = isRecord(entry) ? absoluteUrl(entry.url) : null;
    if (!target || !isRecord(entry))
      throw new AssetError('corrupt', `the ${resolution} glTF of ${id} includes "${path}" without an absolute http(s) URL`);
    include[path] = target;
    const size = entry.size;
    bytes = bytes !== null && typeof size === 'number' ? bytes + size : null;
  }
  return { resolution, url, include, bytes };
}

import { isValidAssetId } from './asset-id.ts';
import { AssetError } from './errors.ts';
import type { CatalogEntry, PolyHavenAssetJson, PolyHavenFileJson, PolyHavenModelFilesJson } from './polyhaven-types.ts';

/** The result of checking a catalog: usable entries and what was left out (and why). */
export interface ParsedCatalog {
  entries: CatalogEntry[];
  /** Keys dropped because they are not valid asset ids or their value is not an asset. */
  rejected: Array<{ key: string; reason: string }>;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

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
    if (!isRecord(raw) || typeof raw.name !== 'string') {
      rejected.push({ key, reason: 'no name' });
      continue;
    }
    const asset = raw as unknown as PolyHavenAssetJson;
    const categories = new Set(stringList(asset.categories).map((c) => c.toLowerCase()));
    if (typeof asset.category === 'string') for (const part of asset.category.split('/')) if (part.trim()) categories.add(part.trim().toLowerCase());
    const thumbnail = typeof asset.thumbnail_url === 'string' && /^https?:\/\//i.test(asset.thumbnail_url) ? asset.thumbnail_url : null;
    entries.push({
      id: key,
      name: asset.name,
      categories: [...categories],
      tags: stringList(asset.tags).map((t) => t.toLowerCase()),
      thumbnailUrl: thumbnail,
      downloads: typeof asset.download_count === 'number' && Number.isFinite(asset.download_count) ? asset.download_count : 0,
      authors: isRecord(asset.authors) ? Object.keys(asset.authors) : [],
    });
  }
  return { entries, rejected };
}

/** Texture resolutions Poly Haven publishes, smallest first. */
export const RESOLUTIONS = ['1k', '2k', '4k', '8k', '16k'] as const;
export type Resolution = (typeof RESOLUTIONS)[number];

/** Where one resolution of a model's glTF lives, and the files it needs. */
export interface GltfDownload {
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
export function gltfResolutions(files: PolyHavenModelFilesJson): string[] {
  const gltf = isRecord(files.gltf) ? files.gltf : {};
  return Object.keys(gltf)
    .filter((res) => isRecord(gltf[res]) && isRecord((gltf[res] as { gltf?: unknown }).gltf))
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
  const available = gltfResolutions(files as PolyHavenModelFilesJson);
  if (available.length === 0) throw new AssetError('no-gltf', `${id} has no glTF download (formats offered: ${Object.keys(files).join(', ') || 'none'})`);
  const rank = resolutionRank(wanted);
  const below = available.filter((r) => resolutionRank(r) <= rank);
  const resolution = below.length > 0 ? below[below.length - 1]! : available[0]!;
  const file = ((files as PolyHavenModelFilesJson).gltf![resolution] as unknown as { gltf: Record<string, unknown> }).gltf;
  const url = absoluteUrl(file.url);
  if (!url) throw new AssetError('corrupt', `the ${resolution} glTF of ${id} has no absolute http(s) URL`);
  const include: Record<string, string> = {};
  let bytes: number | null = typeof file.size === 'number' ? file.size : null;
  if (file.include !== undefined && !isRecord(file.include)) throw new AssetError('corrupt', `the ${resolution} glTF of ${id} has an include list that is not an object`);
  for (const [path, entry] of Object.entries((file.include ?? {}) as Record<string, unknown>)) {
    const target = isRecord(entry) ? absoluteUrl((entry as unknown as PolyHavenFileJson).url) : null;
    if (!target) throw new AssetError('corrupt', `the ${resolution} glTF of ${id} includes "${path}" without an absolute http(s) URL`);
    include[path] = target;
    const size = (entry as unknown as PolyHavenFileJson).size;
    bytes = bytes !== null && typeof size === 'number' ? bytes + size : null;
  }
  return { resolution, url, include, bytes };
}

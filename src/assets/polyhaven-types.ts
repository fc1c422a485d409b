/**
 * The parts of Poly Haven's public API (https://api.polyhaven.com, swagger.yml in
 * Poly-Haven/Public-API) that the assets module reads. Fields we do not use are left out; the
 * parsers in catalog-parse.ts accept extra fields and check the ones below.
 */

/** One value of `GET /assets?t=models`, which is an object keyed by asset id. */
export interface PolyHavenAssetJson {
  name: string;
  /** 0 HDRI, 1 texture, 2 model. */
  type?: number;
  /** Deprecated by Poly Haven but still sent: legacy pseudo-tag categories. */
  categories?: string[];
  /** The single-path taxonomy that replaces `categories`, e.g. "Furniture/Seating/Chairs". */
  category?: string;
  tags?: string[];
  thumbnail_url?: string;
  download_count?: number;
  authors?: Record<string, string>;
  max_resolution?: [number, number];
  date_published?: number;
}

/** `{ url, md5, size }`: one downloadable file. */
export interface PolyHavenFileJson {
  url: string;
  md5?: string;
  size?: number;
}

/** A file that needs others next to it: `include` maps the relative path written inside the file to where it really lives. */
export interface PolyHavenFileWithIncludesJson extends PolyHavenFileJson {
  include?: Record<string, PolyHavenFileJson>;
}

/** `GET /files/{id}` for a model: format → resolution → format key → file. */
export interface PolyHavenModelFilesJson {
  gltf?: Record<string, { gltf?: PolyHavenFileWithIncludesJson }>;
  [format: string]: unknown;
}

/** A catalog entry as the rest of Cairn sees it: checked, with stable field names. */
export interface CatalogEntry {
  id: string;
  name: string;
  /** Legacy categories plus the segments of the taxonomy path, lower-cased and de-duplicated. */
  categories: string[];
  tags: string[];
  /** Absolute thumbnail URL, or null when the API gave none. */
  thumbnailUrl: string | null;
  downloads: number;
  authors: string[];
}

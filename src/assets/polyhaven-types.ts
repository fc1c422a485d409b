/**
 * The parts of Poly Haven's public API (https://api.polyhaven.com, swagger.yml in
 * Poly-Haven/Public-API) that the assets module reads. Fields we do not use are left out; the
 * parsers in catalog-parse.ts accept extra fields and check the ones below.
 */

/** One value of `GET /assets?t=models`, which is an object keyed by asset id. */
export interface PolyHavenAssetJson {
  /** Display name. */
  name: string;
  /** 0 HDRI, 1 texture, 2 model. */
  type?: number;
  /** Deprecated by Poly Haven but still sent: legacy pseudo-tag categories. */
  categories?: string[];
  /** The single-path taxonomy that replaces `categories`, e.g. "Furniture/Seating/Chairs". */
  category?: string;
  /** Free-form tags. */
  tags?: string[];
  /** Absolute URL of the thumbnail. */
  thumbnail_url?: string;
  /** Downloads so far. */
  download_count?: number;
  /** Authors: name → what they did. */
  authors?: Record<string, string>;
  /** Largest texture size offered, [width, height] in pixels. */
  max_resolution?: [number, number];
  /** Publication time, seconds since the epoch. */
  date_published?: number;
}

/** `{ url, md5, size }`: one downloadable file. */
export interface PolyHavenFileJson {
  /** Absolute URL of the file. */
  url: string;
  /** MD5 of the file, hex. */
  md5?: string;
  /** Size in bytes. */
  size?: number;
}

/** A file that needs others next to it: `include` maps the relative path written inside the file to where it really lives. */
export interface PolyHavenFileWithIncludesJson extends PolyHavenFileJson {
  /** Relative path written inside the file → the file it stands for. */
  include?: Record<string, PolyHavenFileJson>;
}

/** `GET /files/{id}` for a model: format → resolution → format key → file. */
export interface PolyHavenModelFilesJson {
  /** Resolution (`1k`, `2k`…) → the glTF file of that resolution. */
  gltf?: Record<
    string,
    {
      /** The `.gltf` file, with the buffers and textures it includes. */
      gltf?: PolyHavenFileWithIncludesJson;
    }
  >;
  [format: string]: unknown;
}

/** A catalog entry as the rest of Cairn sees it: checked, with stable field names. */
export interface CatalogEntry {
  /** The asset id (the catalog's key). */
  id: string;
  /** Display name. */
  name: string;
  /** Legacy categories plus the segments of the taxonomy path, lower-cased and de-duplicated. */
  categories: string[];
  /** Free-form tags, lower-cased. */
  tags: string[];
  /** Absolute thumbnail URL, or null when the API gave none. */
  thumbnailUrl: string | null;
  /** Downloads so far (the search's tie-break). */
  downloads: number;
  /** Author names. */
  authors: string[];
}

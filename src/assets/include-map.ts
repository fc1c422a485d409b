/**
 * Poly Haven's glTF files name their buffers and textures with relative paths ("textures/x_diff_1k.jpg")
 * that do not exist next to the .gltf on the CDN: `/files/{id}` instead gives an `include` map from
 * each relative path to its real absolute URL. Rather than downloading the JSON and rewriting its
 * URIs, the loader is left alone and its LoadingManager gets a URL modifier built here: whatever
 * URL the loader derives (gltf folder + relative path) is mapped back to the relative path and
 * looked up in the map.
 */

/** A `LoadingManager.setURLModifier` callback that also remembers what it did. */
export interface IncludeUrlModifier {
  (url: string): string;
  /** Relative paths the glTF asked for that the include map does not list (each once). */
  readonly unmapped: string[];
  /** Each include-map hit: what the loader asked for and the URL it was sent to. */
  readonly mapped: Array<{
    /** The URL the loader asked for. */
    requested: string;
    /** The relative path it stands for (an include-map key). */
    path: string;
    /** The absolute URL it was sent to. */
    url: string;
  }>;
}

/**
 * Normalises a relative path for comparison: `\` → `/`, drops `.` segments and resolves `..`,
 * strips a query or fragment. Percent-escapes are decoded when they decode cleanly (glTF URIs are
 * URI-encoded, include keys are plain paths).
 */
export function normalizeRelativePath(path: string): string {
  let clean = path.replace(/\\/g, '/').replace(/[?#].*$/, '');
  try {
    clean = decodeURIComponent(clean);
  } catch {
    // keep the raw text: a stray "%" in a file name is legal in an include key
  }
  const out: string[] = [];
  for (const segment of clean.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') out.pop();
    else out.push(segment);
  }
  return out.join('/');
}

/** The folder part of a URL exactly as three's `LoaderUtils.extractUrlBase` computes it. */
export function urlBase(url: string): string {
  const slash = url.lastIndexOf('/');
  return slash === -1 ? './' : url.slice(0, slash + 1);
}

const PASS_THROUGH = /^(data|blob):/i;
const ABSOLUTE = /^([a-z][a-z0-9+.-]*:)?\/\//i;

/**
 * Builds the URL modifier for one glTF download.
 * @param gltfUrl the absolute URL of the .gltf file (what the loader is asked to load)
 * @param include relative path → absolute URL, from {@link pickGltfDownload}
 */
export function createIncludeUrlModifier(gltfUrl: string, include: Record<string, string>): IncludeUrlModifier {
  const table = new Map<string, string>();
  for (const [path, url] of Object.entries(include)) table.set(normalizeRelativePath(path), url);
  const base = urlBase(gltfUrl);
  const unmapped: string[] = [];
  const mapped: IncludeUrlModifier['mapped'] = [];

  const modifier = ((url: string): string => {
    if (PASS_THROUGH.test(url) || url === gltfUrl) return url;
    let relative: string;
    if (url.startsWith(base)) relative = url.slice(base.length);
    else if (!ABSOLUTE.test(url) && !url.startsWith('/')) relative = url;
    else return url; // an absolute URI written in the glTF itself: not ours to move
    const path = normalizeRelativePath(relative);
    const target = table.get(path);
    if (target === undefined) {
      if (!unmapped.includes(path)) unmapped.push(path);
      return url;
    }
    mapped.push({ requested: url, path, url: target });
    return target;
  }) as IncludeUrlModifier;
  Object.defineProperty(modifier, 'unmapped', { value: unmapped });
  Object.defineProperty(modifier, 'mapped', { value: mapped });
  return modifier;
}

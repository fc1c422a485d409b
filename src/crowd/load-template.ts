/**
 * Bring your own character: fetch or read a skinned glTF/GLB/FBX and prepare it as a crowd
 * template. Every failure (network, parse, no skeleton, too many bones) comes back as one
 * CrowdTemplateError whose message names the file and the reason, for the page to show; nothing
 * is changed until a template exists. Reports progress while downloading and preparing.
 */
import { fetchModelBytes, parseRig, rigFormatOf, RigLoadError } from '../rig/load.ts';
import { CrowdTemplate, CrowdTemplateError, type CrowdTemplateOptions } from './template.ts';

/** Library clips a rig without clips of its own gets for the crowd (what synthetic peers play). */
export const CROWD_LIBRARY_CLIPS: readonly string[] = ['idle', 'walk_fwd', 'run_fwd', 'dance', 'wave', 'cheer'];

export type LoadPhase = 'download' | 'parse' | 'prepare';

export interface LoadTemplateOptions extends CrowdTemplateOptions {
  /** Called with the phase and 0..1 within it (download progress needs Content-Length). */
  onProgress?: (phase: LoadPhase, fraction: number) => void;
  /**
   * Clips for a rig that has none: Cairn's library clips by name, retargeted on load (in place);
   * `[]` leaves it in its bind pose. Default {@link CROWD_LIBRARY_CLIPS}.
   */
  libraryClips?: readonly string[];
}

/** Fetches a model from a URL and prepares it. */
export async function loadCrowdTemplateFromUrl(url: string, options: LoadTemplateOptions = {}): Promise<CrowdTemplate> {
  const name = decodeURIComponent(url.split(/[?#]/)[0]!.split('/').pop() || url);
  try {
    rigFormatOf(url);
  } catch (error) {
    throw new CrowdTemplateError((error as Error).message);
  }
  let bytes: ArrayBuffer;
  try {
    bytes = await fetchModelBytes(url, (f) => options.onProgress?.('download', f));
  } catch (error) {
    // Name the file the way the user knows it; the cause (CORS, 404, …) is in the message.
    throw new CrowdTemplateError(
      error instanceof RigLoadError ? error.message.replace(error.source, name) : `${name}: ${(error as Error).message}`,
    );
  }
  return prepareTemplate(bytes, url, name, options);
}

/** Reads a dropped or chosen file and prepares it. */
export async function loadCrowdTemplateFromFile(file: File, options: LoadTemplateOptions = {}): Promise<CrowdTemplate> {
  try {
    rigFormatOf(file.name);
  } catch (error) {
    throw new CrowdTemplateError((error as Error).message);
  }
  options.onProgress?.('download', 0);
  const bytes = await file.arrayBuffer();
  options.onProgress?.('download', 1);
  return prepareTemplate(bytes, file.name, file.name, options);
}

/**
 * Prepares a model's bytes fetched elsewhere (a capped download: src/crowd/remote-models.ts);
 * `source` is its URL (external files resolve against it), `name` how the user knows it — with
 * the extension that says the format (a `.vrm` is read as the GLB it is).
 */
export function loadCrowdTemplateFromBytes(
  bytes: ArrayBuffer,
  source: string,
  name: string,
  options: LoadTemplateOptions = {},
): Promise<CrowdTemplate> {
  return prepareTemplate(bytes, source, name, options);
}

async function prepareTemplate(bytes: ArrayBuffer, source: string, name: string, options: LoadTemplateOptions): Promise<CrowdTemplate> {
  options.onProgress?.('parse', 0);
  let rig;
  try {
    rig = await parseRig(bytes, /\.(glb|gltf|fbx|bvh)$/i.test(name) ? name : source, {
      basePath: source.includes('/') ? source.slice(0, source.lastIndexOf('/') + 1) : '',
    });
  } catch (error) {
    // Name the file the way the user knows it (not the full URL).
    const message = error instanceof RigLoadError ? error.message.replace(error.source, name) : `${name}: ${(error as Error).message}`;
    throw new CrowdTemplateError(message);
  }
  options.onProgress?.('parse', 1);
  options.onProgress?.('prepare', 0);
  const notes: string[] = [];
  if (rig.report.skeletonOnly)
    throw new CrowdTemplateError(
      `${name}: has a skeleton but no mesh (mocap): nothing for a crowd to draw; use it as a clip source on the retarget page`,
    );
  const wanted = options.libraryClips ?? CROWD_LIBRARY_CLIPS;
  if (rig.clips.length === 0 && wanted.length > 0) {
    // A rig without clips gets Cairn's library, retargeted onto it, instead of standing in T-pose.
    // Loaded on demand: pages whose models carry clips never download the retargeter.
    const { libraryForRig } = await import('../anim/retarget/library-for-rig.ts');
    const library = await libraryForRig(rig.object, rig.bones, name, { clips: wanted });
    rig.clips = library.clips;
    notes.push(
      library.clips.length
        ? `no clips in the file: ${library.clips.length} library clips retargeted onto it (${library.clips.map((c) => c.name).join(', ')})`
        : 'no clips in the file, and the library could not be retargeted onto it: it stands in its bind pose',
    );
    notes.push(...library.problems);
  }
  const template = new CrowdTemplate(rig, { ...options, name: options.name ?? name });
  template.report.notes.push(...notes);
  options.onProgress?.('prepare', 1);
  return template;
}

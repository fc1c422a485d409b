/**
 * Bring your own character: fetch or read a skinned glTF/GLB/FBX and prepare it as a crowd
 * template. Every failure (network, parse, no skeleton, too many bones) comes back as one
 * CrowdTemplateError whose message names the file and the reason, for the page to show; nothing
 * is changed until a template exists. Reports progress while downloading and preparing.
 */
import { fetchModelBytes, parseRig, refusalOf, rigFormatOf, RigLoadError } from '../rig/load.ts';
import { formatClipStates, isPlaceholderClipName, matchClipStates, type ClipState } from '../rig/clip-names.ts';
import type { Progress, ProgressListener } from '../core/progress.ts';
import { CrowdTemplate, CrowdTemplateError, type CrowdTemplateOptions } from './template.ts';

/** The states a crowd avatar plays (what synthetic peers and remote players ask for). */
export const CROWD_STATES = ['idle', 'walk', 'run', 'dance', 'wave', 'cheer'] as const satisfies readonly ClipState[];

/** The library clip of each of {@link CROWD_STATES}, retargeted onto a rig whose file has no clip for that state. */
export const CROWD_LIBRARY_CLIPS: readonly string[] = ['idle', 'walk_fwd', 'run_fwd', 'dance', 'wave', 'cheer'];

/** The phases of loading a character, in order: the `label` of its {@link LoadTemplateProgress}. */
export type LoadPhase = 'download' | 'parse' | 'prepare';

/** Progress of loading a character: `label` the phase, `done` of `total` within it. */
export interface LoadTemplateProgress extends Progress {
  label: LoadPhase;
}

/** Options of {@link loadCrowdTemplateFromUrl}, `…FromFile` and `…FromBytes`: the template's, plus progress and the library clips retargeted on load. */
export interface LoadTemplateOptions extends CrowdTemplateOptions {
  /**
   * Hears each phase (`label`) as it goes: bytes received of the Content-Length while downloading
   * (`total` null when the server sends none), then 0 and 1 of 1 for parsing and preparing.
   */
  onProgress?: ProgressListener<LoadTemplateProgress>;
  /**
   * Cairn's library clips, by name, retargeted on load (in place) for the states the file has no
   * clip for (every one of them for a rig with no clips); `[]` retargets none. Default
   * {@link CROWD_LIBRARY_CLIPS}.
   */
  libraryClips?: readonly string[];
}

/** Fetches a model from a URL and prepares it. */
export async function loadCrowdTemplateFromUrl(url: string, options: LoadTemplateOptions = {}): Promise<CrowdTemplate> {
  const name = decodeURIComponent(url.split(/[?#]/)[0]!.split('/').pop() || url);
  let bytes: ArrayBuffer;
  try {
    rigFormatOf(url);
    bytes = await fetchModelBytes(url, (progress) => options.onProgress?.({ ...progress, label: 'download' }));
  } catch (error) {
    // Name the file the way the user knows it; the cause (CORS, 404, …) is in the message.
    throw refused(error, name);
  }
  return prepareTemplate(bytes, url, name, options);
}

/** Reads a dropped or chosen file and prepares it. */
export async function loadCrowdTemplateFromFile(file: File, options: LoadTemplateOptions = {}): Promise<CrowdTemplate> {
  try {
    rigFormatOf(file.name);
  } catch (error) {
    throw refused(error, file.name);
  }
  options.onProgress?.({ done: 0, total: file.size, label: 'download' });
  const bytes = await file.arrayBuffer();
  options.onProgress?.({ done: bytes.byteLength, total: bytes.byteLength, label: 'download' });
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
  options.onProgress?.({ done: 0, total: 1, label: 'parse' });
  let rig;
  try {
    rig = await parseRig(bytes, /\.(glb|gltf|fbx|bvh)$/i.test(name) ? name : source, {
      basePath: source.includes('/') ? source.slice(0, source.lastIndexOf('/') + 1) : '',
    });
  } catch (error) {
    throw refused(error, name);
  }
  options.onProgress?.({ done: 1, total: 1, label: 'parse' });
  options.onProgress?.({ done: 0, total: 1, label: 'prepare' });
  const notes: string[] = [];
  if (rig.report.skeletonOnly) throw refused(RigLoadError.because('no-mesh', name, { bones: rig.bones.length }), name);
  // One clip under an exporter's placeholder name (Mixamo's "mixamo.com", "Take 001"): the file's
  // name says what it is ("Walking.fbx").
  if (rig.clips.length === 1 && isPlaceholderClipName(rig.clips[0]!.name)) {
    const fileName = name.replace(/\.[^.]+$/, '');
    notes.push(`its one clip "${rig.clips[0]!.name}" is taken by the file's name: "${fileName}"`);
    rig.clips[0]!.name = fileName;
  }
  // The file's clips play the states their names say; Cairn's library, retargeted onto the rig,
  // plays the states the file has no clip for (a rig with no clips gets the whole set).
  const fileStates: Partial<Record<ClipState, string>> = matchClipStates(
    rig.clips.map((clip) => clip.name),
    CROWD_STATES,
  );
  const wanted = (options.libraryClips ?? CROWD_LIBRARY_CLIPS).filter((clip) => {
    const state = (Object.keys(matchClipStates([clip], CROWD_STATES)) as ClipState[])[0];
    return state === undefined ? rig.clips.length === 0 : fileStates[state] === undefined;
  });
  const clipStates: Partial<Record<ClipState, string>> = { ...fileStates };
  const sources: Partial<Record<ClipState, string>> = {};
  if (wanted.length > 0) {
    // Loaded on demand: pages whose models carry every clip never download the retargeter.
    const { libraryForRig } = await import('../anim/retarget/library-for-rig.ts');
    const library = await libraryForRig(rig.object, rig.bones, name, { clips: wanted });
    const taken = new Set(rig.clips.map((clip) => clip.name));
    const added = library.clips.filter((clip) => !taken.has(clip.name));
    rig.clips = [...rig.clips, ...added];
    for (const [state, clip] of Object.entries(
      matchClipStates(
        added.map((c) => c.name),
        CROWD_STATES,
      ),
    ) as Array<[ClipState, string]>) {
      if (clipStates[state] !== undefined) continue;
      clipStates[state] = clip;
      sources[state] = 'library';
    }
    notes.push(
      added.length
        ? `${added.length} library clip(s) retargeted onto it for the states its file has no clip for (${added.map((c) => c.name).join(', ')})`
        : `the library could not be retargeted onto it: ${CROWD_STATES.filter((s) => clipStates[s] === undefined).join(', ')} have no clip`,
    );
    notes.push(...library.problems);
  }
  notes.push(`clips: ${formatClipStates(CROWD_STATES, clipStates, sources)}`);
  const template = new CrowdTemplate(rig, { ...options, name: options.name ?? name, clipStates: { ...clipStates, ...options.clipStates } });
  template.report.notes.push(...notes);
  options.onProgress?.({ done: 1, total: 1, label: 'prepare' });
  return template;
}

/** A refusal in the import layer's words, naming the file the way the user knows it (not the full URL). */
function refused(error: unknown, name: string): CrowdTemplateError {
  const { message, reason } = refusalOf(error, name);
  return new CrowdTemplateError(message, reason);
}

/** Why a model was refused, for code that reacts to the cause (the message is for people). */
export type ImportFailure =
  /** The file type is not one Cairn reads (.glb, .gltf, .fbx, .bvh). */
  | 'unsupported'
  /** The file or URL does not exist (ENOENT, HTTP 404). */
  | 'not-found'
  /** Another HTTP error status. */
  | 'http'
  /** The browser refused the response: a cross-origin server without Access-Control-Allow-Origin, or no network. */
  | 'cors'
  /** The file cannot be read (permissions, a directory). */
  | 'unreadable'
  /** The bytes are not a model of the named type. */
  | 'not-a-model'
  /** The model parses but has nothing to animate: no skinned mesh, no bones, no animated hierarchy. */
  | 'no-skeleton'
  /** A resource the model names (an external .bin or image) cannot be loaded. */
  | 'missing-resource';

/**
 * Raised for files that do not load, or load but are not usable characters. The message starts with
 * the file's name and says the cause in words; {@link reason} says it for code.
 */
export class RigLoadError extends Error {
  override name = 'RigLoadError';
  readonly source: string;
  readonly reason: ImportFailure;

  constructor(
    message: string,
    /** The file name or URL as the caller gave it. */
    source: string,
    /** The cause. */
    reason: ImportFailure = 'not-a-model',
  ) {
    super(`${source}: ${message}`);
    this.source = source;
    this.reason = reason;
  }
}

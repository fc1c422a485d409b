/**
 * The one vocabulary for refusing a model and for saying what an import lost. The command-line
 * tools, the crowd's loader, the world's avatar and the retarget page all word a refusal through
 * {@link describeFailure} and a loss through {@link describeLoss}, so a person reads the same cause
 * in the same words wherever they brought the file.
 */

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
  /** The bytes are a web page saved under a model's name (a sign-in or error page, a "download" link). */
  | 'html-page'
  /** The file ends before the data its own header or buffers declare (an interrupted download or copy). */
  | 'truncated'
  /** The bytes are not a model of the named type. */
  | 'not-a-model'
  /** A file the model names (an external .bin) cannot be loaded. */
  | 'missing-resource'
  /** A skeleton with no mesh: nothing to draw (a clip source, such as mocap). */
  | 'no-mesh'
  /** Meshes with nothing to animate them: no skinned mesh, no bones, no animated node hierarchy. */
  | 'no-skeleton';

/** The figures a refusal's words quote; each cause reads the ones it needs. */
export interface FailureDetail {
  /** Bytes the file holds. */
  bytes?: number;
  /** Bytes its header (or buffer list) declares. */
  declared?: number;
  /** The file a model refers to, or the resource that failed. */
  file?: string;
  /** Bones in the file. */
  bones?: number;
  /** Meshes in the file (glTF meshes: one mesh may hold several primitives). */
  meshes?: number;
  /** Primitives (draw pieces) of those meshes, when the format has them. */
  primitives?: number;
  /** The format the name promised ('glTF/GLB', 'FBX', 'BVH'). */
  format?: string;
  /** What the bytes are instead, or the parser's own words, for causes that quote them. */
  what?: string;
  /** HTTP status and text. */
  status?: string;
  /** A cross-origin server's origin. */
  origin?: string;
}

const count = (n: number, one: string, many = `${one}s`): string => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** The meshes a file holds, in words: "1 mesh (2 primitives)", "13 meshes". */
export function meshWords(meshes: number, primitives?: number): string {
  const base = count(meshes, 'mesh', 'meshes');
  return primitives !== undefined && primitives !== meshes ? `${base} (${count(primitives, 'primitive')})` : base;
}

/**
 * The words for a refusal's cause (without the file's name, which {@link RigLoadError} puts in
 * front). Every place that refuses a model words it through here.
 */
export function describeFailure(reason: ImportFailure, detail: FailureDetail = {}): string {
  switch (reason) {
    case 'unsupported':
      return `unsupported file type${detail.what ? ` (${detail.what})` : ''}; Cairn reads .glb, .gltf, .fbx and .bvh files`;
    case 'not-found':
      return detail.status ? `${detail.status} (not found: nothing at that address)` : 'no such file';
    case 'http':
      return detail.status ?? 'the server answered with an error';
    case 'cors':
      return detail.origin
        ? `could not be fetched: the server at ${detail.origin} did not allow this page to read it (CORS: it must send Access-Control-Allow-Origin), or it cannot be reached${detail.what ? ` (${detail.what})` : ''}`
        : `could not be fetched: the server cannot be reached${detail.what ? ` (${detail.what})` : ''}`;
    case 'unreadable':
      return `cannot be read${detail.what ? ` (${detail.what})` : ''}`;
    case 'html-page':
      return "it is an HTML page, not a model: the link or the download saved a web page (a sign-in or error page) under the model's name";
    case 'truncated':
      return detail.declared !== undefined && detail.bytes !== undefined
        ? `the file is cut short: it holds ${count(detail.bytes, 'byte')} of the ${detail.declared.toLocaleString('en-US')} its header declares; download or copy it again`
        : `the file is cut short: ${detail.what ?? 'its data ends before what it declares'}; download or copy it again`;
    case 'not-a-model':
      return `it is not a ${detail.format ?? 'model'} file${detail.what ? ` (${detail.what})` : ''}`;
    case 'missing-resource':
      return `a file it refers to is missing: ${detail.file ?? 'an external buffer'}; keep the .bin files beside the .gltf (or use a .glb)`;
    case 'no-mesh':
      return `has a skeleton${detail.bones !== undefined ? ` (${count(detail.bones, 'bone')})` : ''} but no mesh: nothing to draw; it can serve as a clip source`;
    case 'no-skeleton':
      return detail.meshes
        ? `has no skeleton: ${meshWords(detail.meshes, detail.primitives)} and no bones or animated nodes; a character needs a skinned mesh`
        : 'has no mesh and no skeleton: nothing to draw or animate';
  }
}

/**
 * Raised for files that do not load, or load but are not usable characters. The message starts with
 * the file's name and says the cause in words; {@link reason} says it for code.
 */
export class RigLoadError extends Error {
  /** The error's name, for telling it apart from other errors. */
  override name = 'RigLoadError';
  /** The file name or URL as the caller gave it. */
  readonly source: string;
  /** The cause, for code. */
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

  /** A refusal worded by {@link describeFailure}. */
  static because(reason: ImportFailure, source: string, detail: FailureDetail = {}): RigLoadError {
    return new RigLoadError(describeFailure(reason, detail), source, reason);
  }

  /** The message naming the file as `name` (a person knows a file by its name, not its full URL or path). */
  messageFor(name: string): string {
    return `${name}: ${this.message.slice(this.source.length + 2)}`;
  }
}

/** A refusal as a page or a command shows it: the message (naming the file as `name`) and the cause. */
export function refusalOf(
  error: unknown,
  name: string,
): {
  /** The message, naming the file as `name`. */
  message: string;
  /** The cause, for code. */
  reason: ImportFailure;
} {
  if (error instanceof RigLoadError) return { message: error.messageFor(name), reason: error.reason };
  const message = (error as Error | undefined)?.message ?? String(error);
  return { message: message.startsWith(name) ? message : `${name}: ${message}`, reason: 'not-a-model' };
}

/** What an import or a consumer of it set aside, for code; {@link describeLoss} words it. */
export type ImportLoss =
  /** A texture the model names could not be loaded: drawn without it. */
  | {
      /** Discriminates the loss. */
      kind: 'missing-texture';
      /** The texture's file name or URL. */
      file: string;
    }
  /** Clip tracks nothing can play (their node is gone, or they drive something the consumer does not run). */
  | {
      /** Discriminates the loss. */
      kind: 'dropped-tracks';
      /** Tracks dropped. */
      count: number;
      /** Why, in words. */
      why: string;
      /** Some of them (`clip: track`). */
      examples: readonly string[];
    }
  /** Morph targets the consumer does not run. */
  | {
      /** Discriminates the loss. */
      kind: 'dropped-morphs';
      /** The morph targets' names. */
      names: readonly string[];
      /** Why, in words. */
      why: string;
    };

const list = (names: readonly string[], max = 6): string => `${names.slice(0, max).join(', ')}${names.length > max ? ', …' : ''}`;

/** The sentence for a loss, the same wherever it is shown (a notice, `cairn.stats`, a command's output). */
export function describeLoss(loss: ImportLoss): string {
  switch (loss.kind) {
    case 'missing-texture':
      return `texture ${JSON.stringify(loss.file)} is missing: drawn without it`;
    case 'dropped-tracks':
      return `${count(loss.count, 'clip track')} dropped: ${loss.why}${loss.examples.length ? ` (${list(loss.examples, 3)})` : ''}`;
    case 'dropped-morphs':
      return `${count(loss.names.length, 'morph target')} set aside: ${loss.why} (${list(loss.names)})`;
  }
}

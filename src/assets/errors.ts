/**
 * What went wrong while talking to the asset API or loading a model. `kind` lets the UI say the
 * right thing (retry for network trouble, "no such asset" for a 404, "broken file" for a parse
 * failure) without parsing messages.
 */
export type AssetErrorKind =
  /** The id does not match the API's pattern; nothing was requested. */
  | 'invalid-id'
  /** The API or CDN answered 404. */
  | 'not-found'
  /** Any other non-2xx HTTP status (5xx while the API is down, 429…). */
  | 'http'
  /** No answer at all: offline, DNS, refused connection, CORS. */
  | 'network'
  /** The answer arrived but is not what the API promises (bad JSON, wrong shape, broken glTF). */
  | 'corrupt'
  /** The asset exists but offers no glTF download. */
  | 'no-gltf'
  /** A newer request replaced this one before it finished. */
  | 'superseded';

/** An error from the assets module; `message` is written for the person using the page. */
export class AssetError extends Error {
  /** The error's name, for telling it apart from other errors. */
  override name = 'AssetError';
  /** What kind of trouble it is (what the UI should say). */
  readonly kind: AssetErrorKind;
  /** The URL involved, when there is one. */
  readonly url?: string;
  /** The HTTP status, for `http` and `not-found`. */
  readonly status?: number;

  constructor(
    kind: AssetErrorKind,
    message: string,
    /** The URL involved, when there is one. */
    url?: string,
    /** HTTP status for 'http' / 'not-found'. */
    status?: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.kind = kind;
    this.url = url;
    this.status = status;
  }

  /** Whether trying again later can help (network trouble and server errors, not bad data). */
  get retryable(): boolean {
    return this.kind === 'network' || (this.kind === 'http' && (this.status === undefined || this.status >= 500 || this.status === 429));
  }
}

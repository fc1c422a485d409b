/** Bindings the Worker receives (see wrangler.toml). */
export interface Env {
  ASSETS: Fetcher;
  AVATAR_ROOM: DurableObjectNamespace;
  VOICE_ROOM: DurableObjectNamespace;
  EDITS_ROOM: DurableObjectNamespace;
}

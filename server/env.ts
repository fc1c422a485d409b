import type { RelayRoom } from './relay/relay-room.ts';
import type { VoiceRoom } from './voice-room.ts';
import type { WorldCell } from './world/world-cell.ts';
import type { EditsRoom } from './world/edits-room.ts';
import type { WorldDirectoryRoom } from './world/world-directory-room.ts';

/** Bindings the Worker receives (see wrangler.toml). */
export interface Env {
  ASSETS: Fetcher;
  RELAY_ROOM: DurableObjectNamespace<RelayRoom>;
  WORLD_CELL: DurableObjectNamespace<WorldCell>;
  WORLD_DIRECTORY: DurableObjectNamespace<WorldDirectoryRoom>;
  VOICE_ROOM: DurableObjectNamespace<VoiceRoom>;
  EDITS_ROOM: DurableObjectNamespace<EditsRoom>;
  /** `1` only in tests: the Worker then takes the client's IP from `X-Test-Client-IP` (server/identity/client.ts). */
  TRUST_TEST_IP_HEADER?: string;
  /** Half the world map's edge in metres (default 256: the 512 m map); see server/world/directory.ts. */
  WORLD_HALF_EXTENT_M?: string;
  /** World seeds that have shared edits, comma-separated (default `1`); see src/scatter/shared-edits.ts. */
  WORLD_SEEDS?: string;
}

import type { Services } from '../core/services.ts';
import type { Crowd } from '../crowd/crowd.ts';
import type { RemoteAvatars } from '../crowd/remote-avatars.ts';
import type { StageCrowd } from '../crowd/stage-crowd.ts';
import type { NetSession } from '../net/net-session.ts';
import type { RemotePeerView } from '../net/view/remote-peer-view.ts';
import type { VoiceChat } from '../voice/voice-chat.ts';
import type { VoicePanel } from '../voice/voice-panel.ts';
import type { AudioEngine } from '../audio/audio-engine.ts';
import type { ReferenceView } from '../anim/view/reference-view.ts';
import type { ScatterTool } from '../scatter/scatter-tool.ts';
import type { WorldAssetsConsole } from '../assets/world-assets.ts';
import type { SharedScatter } from '../scatter/shared-scatter.ts';
import type { Ambient } from '../ambient/index.ts';
import type { BudgetCalibrator } from './budget-calibration.ts';

/** The animation reference view as the anim world plugin publishes it. */
export interface AnimReference {
  /** Shows or hides the source rig beside the player (loading it on first use); resolves with the new visibility. */
  toggleReference(): Promise<boolean>;
  /** The view once it has loaded (null before the first toggle). */
  readonly reference: ReferenceView | null;
}

/**
 * Every service a module publishes on a stage, by key: the one place the keys and their types are
 * declared. A module provides its service with `stage.services.provide(key, value)` and finds
 * another's with `stage.services.get(key)` (or `subscribe(key, fn)` when that one may start later),
 * with no casts. Each provided value is mirrored onto `window.cairn` under the same key, for the
 * console and tests.
 */
export interface WorldServices {
  /** Avatar sync (app/world-plugins/net.ts). */
  net: NetSession;
  /** How remote players are drawn (the crowd's renderer or one humanoid per peer). */
  netView: RemotePeerView;
  /** The crowd renderer now in use (replaced when the character model changes). */
  crowd: Crowd;
  /** The crowd's registry of remote avatars, keyed by net avatar id. */
  crowdRemotes: RemoteAvatars<number>;
  /** The crowd on the stage: synthetic peers plus remote avatars. */
  stageCrowd: StageCrowd;
  /** The voice chat while joined. */
  voice: VoiceChat;
  /** The voice panel (join / leave button) of the world. */
  voicePanel: VoicePanel;
  /** Sound: footsteps, ambience, music, menu clicks. */
  audio: AudioEngine;
  /** The animation reference view. */
  anim: AnimReference;
  /** The asset browser in the world. */
  assets: WorldAssetsConsole;
  /** The scatter brush and its layer. */
  scatter: ScatterTool;
  /** Vegetation, rocks and people at spawn (app/world-plugins/ambient.ts). */
  ambient: Ambient;
  /** Scatter strokes shared per world cell through the edits rooms. */
  sharedScatter: SharedScatter;
  /** The crowd's GPU-budget calibration (idle baseline without the avatars' draws). */
  budgetCalibrator: BudgetCalibrator;
}

/** A stage's typed service registry. */
export type WorldServiceRegistry = Services<WorldServices>;

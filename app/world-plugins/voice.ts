import { showNotice, type World, type WorldPlugin } from '../../src/world/index.ts';
import { DeferredHearing, VoiceChat, VoicePanel, voiceHudRows, roomNameIssue, type VoiceHearingSource } from '../../src/voice/index.ts';
import type { NetSession } from '../../src/net/net-session.ts';
import { tabSession } from '../../src/net/tab-session.ts';

/**
 * Proximity voice in the world. A "Join voice" button (bottom right) joins the voice room of the
 * current room (`?room=NAME`, default 'lobby'; the open world `?world=1` uses the world voice room
 * `world`); `?voice=1` joins at once, `?voice=open` joins with an open mic. While joined, the
 * AudioListener follows the player every frame.
 *
 * With avatar sync on (the `net` service, which may start after voice), voice follows hearing range:
 * it announces this player's avatar id to the voice room and links only to peers whose avatars
 * are within earshot (the net session's hearing set: ≤ 24 m in, > 32 m out, nearest 8), placing
 * each voice where its avatar stands. With `?net=off` it links to everyone in the voice room and
 * shares positions through it, as the standalone voice page does. Idle cost: one button, no
 * audio context, no socket.
 */
export const plugin: WorldPlugin = { name: 'voice', provides: ['voice', 'voicePanel'], uses: ['net'], install };

function install(world: World): (() => void) | void {
  const params = new URLSearchParams(location.search);
  const voiceParam = params.get('voice');
  if (voiceParam === 'off') return;
  const room = params.get('world') === '1' ? 'world' : (params.get('room') ?? 'lobby');
  const followHearing = params.get('net') !== 'off';
  const problem = roomNameIssue(room);
  let removeSection: (() => void) | null = null;
  let removeFrame: (() => void) | null = null;
  let releaseHearing: (() => void) | null = null;
  let unsubscribeNet: (() => void) | null = null;
  let withdrawVoice: (() => void) | null = null;

  const panel = new VoicePanel({
    join: async () => {
      if (problem) {
        const detail = `?room=${room.slice(0, 64)}: ${problem}`;
        showNotice({ level: 'error', title: 'Cannot join voice', detail });
        throw new Error(detail);
      }
      const hearing = followHearing ? new DeferredHearing() : null;
      releaseHearing = hearing ? () => hearing.dispose() : null;
      // The avatar claim carries the net session's avatar token (proof the avatar is ours).
      let session: NetSession | undefined;
      const avatarToken = (): string | null => session?.avatarToken ?? null;
      // The tab's session, the same one avatar sync's sockets carry: our avatar token counts only with it.
      const tab = await tabSession(location.origin, pageSessionStorage());
      const voice = new VoiceChat({
        room,
        session: tab,
        mode: voiceParam === 'open' ? 'open' : 'push-to-talk',
        notify: showNotice,
        avatarToken,
        ...(hearing ? { hearing } : {}),
      });
      voice.setListener(world.player.state);
      withdrawVoice = world.services.provide('voice', voice);
      world.cairn.stats.voice = voice.stats;
      // Avatar sync may start after voice (and the world's cells take a round trip): bind once
      // it is provided.
      if (hearing) {
        unsubscribeNet = world.services.subscribe('net', (net) => {
          session = net;
          if (net && hearing.bound === null) hearing.bind(hearingOf(net));
        });
      }
      removeFrame = world.onFrame(() => {
        // Announce the avatar id whenever it changes (a reconnect gives a new one). A null id
        // (avatar sync reconnecting) keeps the last one: peers drop it from their hearing by
        // themselves if the avatar really goes.
        const avatarId = session?.transport.selfId ?? null;
        if (avatarId !== null) voice.setAvatarId(avatarId);
        voice.setListener(world.player.state);
      });
      removeSection = world.hud?.addSection('voice', { title: 'Voice', rows: (stats) => voiceHudRows(stats.voice) }) ?? null;
      await voice.join();
      return voice;
    },
  });
  panel.events.on('left', () => {
    removeFrame?.();
    removeSection?.();
    releaseHearing?.();
    unsubscribeNet?.();
    withdrawVoice?.();
    removeFrame = removeSection = releaseHearing = unsubscribeNet = withdrawVoice = null;
  });
  const withdrawPanel = world.services.provide('voicePanel', panel);
  if (voiceParam === '1' || voiceParam === 'open') {
    void panel.joinNow().catch((error: Error) => showNotice({ level: 'error', title: 'Voice failed to start', detail: error.message }));
  }
  return () => {
    // Leaving (if joined) runs the 'left' handler above, which undoes the rest.
    panel.leave();
    withdrawPanel();
    panel.dispose();
  };
}

/**
 * The net session as voice's hearing source: its hearing set (avatar ids in earshot, with the
 * set's own hysteresis), its change events, and avatar positions from its peer table — the
 * newest frame of each avatar, ~100 ms ahead of where the avatar is drawn (15 cm at a walk).
 */
function hearingOf(session: NetSession): VoiceHearingSource {
  return {
    get ids() {
      return session.hearing.ids;
    },
    onChange: (listener) => session.events.on('hearing', listener),
    positionOf: (avatarId) => {
      const sample = session.table.peers.get(avatarId)?.newest();
      return sample ? { x: sample.x, y: sample.y, z: sample.z, facing: sample.facing } : null;
    },
  };
}

/** The page's sessionStorage, or null where reading it throws (a sandboxed frame). */
function pageSessionStorage(): Storage | null {
  try {
    return sessionStorage;
  } catch {
    return null;
  }
}

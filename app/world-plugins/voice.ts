import { showNotice, type World } from '../../src/world/index.ts';
import { VoiceChat, VoicePanel, voiceHudRows, voiceRoomProblem, type VoiceStats } from '../../src/voice/index.ts';

/**
 * Proximity voice in the world. A "Join voice" button (bottom right) joins the voice room of the
 * current room (`?room=NAME`, default 'lobby'); `?voice=1` joins at once, `?voice=open` joins with
 * an open mic. While joined, the AudioListener follows the player every frame and the player's
 * position goes to the others through the VoiceRoom (independent of avatar sync). Idle cost: one
 * button, no audio context, no socket.
 */
export function install(world: World): void {
  const params = new URLSearchParams(location.search);
  const voiceParam = params.get('voice');
  if (voiceParam === 'off') return;
  const room = params.get('room') ?? 'lobby';
  const problem = voiceRoomProblem(room);
  let removeSection: (() => void) | null = null;
  let removeFrame: (() => void) | null = null;

  const panel = new VoicePanel({
    join: async () => {
      if (problem) {
        const detail = `?room=${room.slice(0, 64)}: ${problem}`;
        showNotice({ level: 'error', title: 'Cannot join voice', detail });
        throw new Error(detail);
      }
      const voice = new VoiceChat({ room, mode: voiceParam === 'open' ? 'open' : 'push-to-talk', notify: showNotice });
      voice.setListener(world.player.state);
      removeFrame = world.onFrame(() => voice.setListener(world.player.state));
      removeSection = world.hud?.addSection('voice', { title: 'Voice', rows: (stats) => voiceHudRows(stats.voice as VoiceStats | undefined) }) ?? null;
      await voice.join();
      return voice;
    },
    left: () => {
      removeFrame?.();
      removeSection?.();
      removeFrame = removeSection = null;
    },
  });
  world.cairn.voicePanel = panel;
  if (voiceParam === '1' || voiceParam === 'open') {
    void panel.joinNow().catch((error: Error) => showNotice({ level: 'error', title: 'Voice failed to start', detail: error.message }));
  }
}

import { AudioEngine, FootstepTracker, audioHudRows, surfaceAt } from '../../src/audio/index.ts';
import { smoothstep } from '../../src/core/math.ts';
import { isTyping } from '../../src/core/typing.ts';
import { StateCard, worldDock, type World, type WorldPlugin } from '../../src/world/index.ts';

/**
 * Sound in the world: footsteps by the surface under the player, jump and land, menu clicks on
 * every button, wind that rises with altitude, the music, and the output meters in the HUD.
 * Nothing is created until the first pointerdown/keydown (the engine listens in the capture phase).
 * Keys: M mutes, P pauses (the world muffled, the player still). Both states are on screen: paused
 * shows a card in the middle of the window (click it to resume), muted an indicator in the tool
 * dock (click it to unmute). `?seed=N` fixes the random sequence.
 */
export const plugin: WorldPlugin = { name: 'audio', provides: ['audio'], install };

function install(world: World): () => void {
  const seed = new URLSearchParams(location.search).get('seed');
  const engine = new AudioEngine({ seed: seed === null ? undefined : Number(seed), music: true, ambience: { wind: 0.35 } });
  const tracker = new FootstepTracker();
  const withdraw = world.services.provide('audio', engine);
  world.cairn.stats.audio = engine.stats;

  let windTarget = -1;
  const removeFrame = world.onFrame(() => {
    if (engine.state !== 'running') return;
    const s = world.player.state;
    const surface = surfaceAt(world.heightmap, s.x, s.z);
    engine.stats.surface = s.state === 'swim' ? 'water' : surface;
    for (const sound of tracker.update(s, surface)) {
      if (sound.recipe === 'footstep') engine.play('footstep', { surface: sound.surface, intensity: sound.intensity });
      else if (sound.recipe === 'jump') engine.play('jump', { surface: sound.surface });
      else engine.play('land', { surface: sound.surface, impact: Math.min(40, sound.impact) });
    }
    // Wind: a breeze in the lowlands, a gale on the peaks. Re-aimed only when it moves noticeably.
    const wind = 0.25 + 0.6 * smoothstep(10, 60, s.y - world.heightmap.waterLevel);
    if (Math.abs(wind - windTarget) > 0.02) {
      windTarget = wind;
      engine.setAmbience({ wind });
    }
  });

  // Menu sounds: any button or checkbox on the page (notices' close buttons, modules' panels).
  const onClick = (event: MouseEvent): void => {
    if ((event.target as HTMLElement | null)?.closest?.('button, [role="button"], input[type="checkbox"]')) engine.play('ui-click');
  };
  document.addEventListener('click', onClick, true);

  const pauseCard = new StateCard({
    title: 'Paused',
    detail: 'Sound is muffled and you stand still; the others carry on.',
    hint: 'Click here or press P to resume',
  });
  const setPaused = (paused: boolean): void => {
    engine.setPaused(paused);
    world.player.enabled = !paused;
    if (paused) pauseCard.show();
    else pauseCard.hide();
    engine.play('ui-confirm');
  };
  pauseCard.on('activate', () => setPaused(false));

  const onKey = (event: KeyboardEvent): void => {
    if (event.code !== 'KeyP' || event.repeat || isTyping(event)) return;
    setPaused(!engine.paused);
  };
  window.addEventListener('keydown', onKey);

  // Muted (M, or remembered from an earlier visit): an indicator among the tools; a click unmutes.
  const muted = document.createElement('button');
  muted.type = 'button';
  muted.className = 'cairn-tool cairn-muted';
  muted.dataset.tone = 'warn';
  muted.textContent = 'Muted (M)';
  muted.title = 'Sound is muted: click or press M to unmute';
  muted.hidden = !engine.muted;
  muted.addEventListener('click', () => {
    engine.setMuted(false);
    muted.blur();
  });
  worldDock().tools.prepend(muted);
  // Kept in step at once after a key (the engine's own M listener ran first) and four times a
  // second otherwise (a mute set from the console or another module), however slow the frames.
  const syncMuted = (): void => {
    if (muted.hidden === !engine.muted) return;
    muted.hidden = !engine.muted;
  };
  window.addEventListener('keydown', syncMuted);
  const muteTimer = window.setInterval(syncMuted, 250);
  const removeMuteWatch = (): void => {
    window.removeEventListener('keydown', syncMuted);
    clearInterval(muteTimer);
  };

  const removeSection = world.hud?.addSection('audio', { title: 'Audio', rows: (stats) => audioHudRows(stats.audio) });

  return () => {
    removeSection?.();
    removeFrame();
    removeMuteWatch();
    pauseCard.dispose();
    muted.remove();
    document.removeEventListener('click', onClick, true);
    window.removeEventListener('keydown', onKey);
    withdraw();
    engine.dispose();
  };
}

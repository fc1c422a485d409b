import { pageBonePath } from '../cairn.ts';
import type { StageCrowd } from '../../src/crowd/stage-crowd.ts';
import type { Ambient } from '../../src/ambient/index.ts';
import { Disposers } from '../../src/core/disposers.ts';
import type { AmbientScatter } from '../../src/ambient/ambient-scatter.ts';
import { keepClear } from '../../src/ambient/keep-clear.ts';
import { chooseQuality, QUALITY_TIERS, WORLD_QUALITIES, type QualityChoice, type WorldQuality } from '../../src/ambient/quality.ts';
import { showNotice, type CairnNotice, type HudRow, type NoticeAction, type World, type WorldPlugin } from '../../src/world/index.ts';

/**
 * The world a visitor meets: vegetation and rocks over the whole map (streamed by distance,
 * placed in a Worker from the world seed) and a few people walking about near the spawn who step
 * aside for the player. Both are built after the world's first frames, so they never delay them.
 * `?ambient=0` leaves the map bare; `?people=N` sets the people (0–40, default the tier's).
 *
 * How much of it is drawn is the quality tier (src/ambient/quality.ts): 'full' on a GPU, 'low' on
 * a software rasteriser (SwiftShader, llvmpipe: a CPU drawing the full forest takes seconds per
 * frame), `?quality=off|low|full` to choose. The tier and why it was chosen are in
 * `cairn.stats.quality` and the HUD's first rows; on a software rasteriser a notice names the tier
 * with links to the others, and stays until its × (a slow machine may take longer to show its first
 * frames than a notice's fade).
 */
/** How close people may come to the player, metres. */
const PERSONAL_SPACE = 1.6;

export const plugin: WorldPlugin = { name: 'ambient', provides: ['ambient'], install };

function install(world: World): () => void {
  const undo = new Disposers();
  const params = new URLSearchParams(location.search);
  const seed = Number(params.get('seed') ?? 1) || 1;
  const choice = chooseQuality({
    adapter: world.status.adapter,
    asked: params.get('quality'),
    people: params.get('people'),
    // Firefox's WebGPU canvas presents a scaled drawing buffer at seconds a frame (docs/browsers.md).
    scaledBufferIsSlow: world.status.backend === 'WebGPU' && /\bFirefox\//.test(navigator.userAgent),
  });
  const quality = choice.tier;
  world.cairn.stats.quality = choice;
  const tier = QUALITY_TIERS[quality];
  const scatterOn = params.get('ambient') !== '0' && tier.scatter !== null;
  const people = choice.people;
  // How finely the tier draws: the drawing buffer's resolution and the sun's shadow pass.
  const renderer = world.renderer;
  const pixelRatio = renderer.getPixelRatio();
  const shadows = renderer.shadowMap.enabled;
  renderer.setPixelRatio(pixelRatio * choice.renderScale);
  renderer.shadowMap.enabled = shadows && tier.shadows;
  undo.add(() => {
    renderer.setPixelRatio(pixelRatio);
    renderer.shadowMap.enabled = shadows;
  });
  if (world.hud) undo.add(world.hud.addSection('quality', { title: 'Quality', rows: () => [], headline: qualityHeadline }));
  if (choice.software && !choice.asked) undo.add(showNotice(qualityNotice(choice), { actions: qualityLinks(quality), seconds: null }));

  let resolveScatter!: (scatter: AmbientScatter | null) => void;
  const ambient: Ambient = { scatter: null, crowd: null, scatterReady: new Promise((resolve) => (resolveScatter = resolve)) };
  undo.add(world.services.provide('ambient', ambient));

  if (!scatterOn) resolveScatter(null);
  else {
    void world
      .frames(2)
      .then(() => import('../../src/ambient/ambient-scatter.ts'))
      .then(({ AmbientScatter }) => {
        if (disposed) return;
        const scatter = new AmbientScatter({ ground: world.heightmap, seed, parent: world.scene, ...tier.scatter });
        ambient.scatter = scatter;
        world.cairn.stats.ambient = { ...scatter.stats, quality };
        undo.add(() => scatter.dispose());
        undo.add(world.onFrame(() => Object.assign(world.cairn.stats.ambient!, scatter.stats)));
        undo.add(world.onFrame((_dt, time) => scatter.update(world.player.state, world.camera.position, time)));
        const removeSection = world.hud?.addSection('ambient', {
          title: 'World',
          rows: () => {
            const s = scatter.stats;
            return [
              {
                label: 'regions',
                value: `${s.regions.drawn} drawn / ${s.regions.total}${s.regions.queued ? ` · ${s.regions.queued} queued` : ''} (${quality})`,
              },
              {
                label: 'scatter',
                value: `${s.instances.toLocaleString('en-US')} (LOD ${s.perLevel.join('/')})${s.pending ? ` · ${s.pending} baking` : ''}`,
              },
              ...(s.lastError ? [{ label: 'error', value: s.lastError.slice(0, 60), tone: 'bad' as const }] : []),
            ];
          },
        });
        if (removeSection) undo.add(removeSection);
        resolveScatter(scatter);
      })
      .catch((error: Error) => {
        showNotice({ level: 'error', title: 'The world’s vegetation could not load', detail: error.message });
        resolveScatter(null);
      });
  }

  if (people > 0) {
    const spawn = { x: world.player.state.x, z: world.player.state.z };
    void world
      .frames(3)
      .then(() => import('../../src/crowd/stage-crowd.ts'))
      .then(({ StageCrowd }) => {
        if (disposed) return;
        // Registered before the crowd's own frame step, so people are moved aside before drawing.
        let crowd: StageCrowd | null = null;
        undo.add(
          world.onFrame(() => {
            if (crowd)
              keepClear(crowd.peers.peers, world.player.state.x, world.player.state.z, PERSONAL_SPACE, (x, z) =>
                world.heightmap.sampleHeight(x, z),
              );
          }),
        );
        const ground = world.heightmap;
        crowd = new StageCrowd(world, {
          heightmap: ground,
          path: pageBonePath(),
          peers: {
            seed: seed + 101,
            centerX: spawn.x,
            centerZ: spawn.z,
            radius: 38,
            walkable: (x, z) =>
              ground.sampleHeight(x, z) > ground.waterLevel + 0.4 &&
              ground.sampleSlope(x, z) < 24 &&
              Math.hypot(x - spawn.x, z - spawn.z) > 4,
          },
          count: people,
          publish: false,
        });
        ambient.crowd = crowd;
        undo.add(() => crowd?.dispose());
      })
      .catch((error: Error) => showNotice({ level: 'warn', title: 'The people in the world could not start', detail: error.message }));
  }
  let disposed = false;
  return () => {
    disposed = true;
    undo.dispose();
  };
}

/** The HUD's headline row: the tier and, in short, why. */
function qualityHeadline(stats: { quality?: QualityChoice }): HudRow[] {
  const q = stats.quality;
  if (!q) return [];
  const why = q.asked ? 'asked' : q.software ? 'no GPU' : 'GPU';
  return [{ label: 'quality', value: `${q.tier} (${why})`, tone: q.tier === 'full' ? 'ok' : 'warn' }];
}

function qualityNotice(choice: QualityChoice): CairnNotice {
  return { level: 'info', title: `Quality: ${choice.tier} (no GPU here)`, detail: QUALITY_TIERS[choice.tier].summary };
}

/** Links to this page at each other tier (the rest of the URL kept). */
function qualityLinks(current: WorldQuality): NoticeAction[] {
  return WORLD_QUALITIES.filter((q) => q !== current).map((q) => {
    const url = new URL(location.href);
    url.searchParams.set('quality', q);
    return {
      label: q === 'full' ? 'Full (slow here)' : q === 'off' ? 'Off (bare)' : q,
      href: url.pathname + url.search + url.hash,
      title: QUALITY_TIERS[q].summary,
    };
  });
}

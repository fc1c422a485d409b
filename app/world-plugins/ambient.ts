import { pageBonePath } from '../cairn.ts';
import type { StageCrowd } from '../../src/crowd/stage-crowd.ts';
import type { Ambient } from '../../src/ambient/index.ts';
import { Disposers } from '../../src/core/disposers.ts';
import type { AmbientScatter } from '../../src/ambient/ambient-scatter.ts';
import { keepClear } from '../../src/ambient/keep-clear.ts';
import { showNotice, type World, type WorldPlugin } from '../../src/world/index.ts';

/**
 * The world a visitor meets: vegetation and rocks over the whole map (streamed by distance,
 * placed in a Worker from the world seed) and a few people walking about near the spawn who step
 * aside for the player. Both are built after the world's first frames, so they never delay them.
 * `?ambient=0` leaves the map bare; `?people=N` sets the people (0–40, default 8).
 *
 * On a software rasteriser (SwiftShader, llvmpipe: no GPU) the world stays bare — a CPU drawing a
 * forest takes seconds per frame. `?quality=low` (scatter to 110 m at two thirds of the density) or
 * `?quality=full` (to 200 m) turns it on anywhere.
 */
const MAX_PEOPLE = 40;
const DEFAULT_PEOPLE = 8;
/** How close people may come to the player, metres. */
const PERSONAL_SPACE = 1.6;

export const plugin: WorldPlugin = { name: 'ambient', provides: ['ambient'], install };

function install(world: World): () => void {
  const undo = new Disposers();
  const params = new URLSearchParams(location.search);
  const seed = Number(params.get('seed') ?? 1) || 1;
  const software = /swiftshader|llvmpipe|software|basic render/i.test(world.status.adapter);
  const asked = params.get('quality');
  const quality = asked === 'low' || asked === 'full' || asked === 'off' ? asked : software ? 'off' : 'full';
  const scatterOn = params.get('ambient') !== '0' && quality !== 'off';
  const requested = Number(params.get('people') ?? (quality === 'off' ? 0 : DEFAULT_PEOPLE));
  const people = Number.isFinite(requested) ? Math.min(MAX_PEOPLE, Math.max(0, Math.round(requested))) : DEFAULT_PEOPLE;
  const tier = quality === 'low' ? { loadRadius: 110, unloadRadius: 140, detailRadius: 48, plan: { densityScale: 0.34 } } : {};

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
        const scatter = new AmbientScatter({ ground: world.heightmap, seed, parent: world.scene, ...tier });
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

/**
 * A three.js developer's own scene with Cairn in it: their `three`, their `WebGPURenderer`, their
 * camera and loop; from Cairn a crowd of 200, a painted forest, a forest streamed by the ambient
 * scatter's Worker, and a sound through the mix bus and its metering worklet. Written from
 * docs/install.md, docs/crowd.md, docs/scatter.md and docs/audio.md. The same file runs built by
 * Vite (main.ts) and, with its types stripped, on a page with an import map and no bundler.
 */
import { AmbientScatter } from 'cairn-world/ambient';
import { AudioEngine } from 'cairn-world/audio';
import { Crowd, CrowdTemplate, crowdDeviceInfo } from 'cairn-world/crowd';
import { createHumanoid } from 'cairn-world/rig';
import { ScatterLayer } from 'cairn-world/scatter';
import { generateTerrain, type WorldServices } from 'cairn-world/world';
import { Color, DirectionalLight, Group, HemisphereLight, PerspectiveCamera, REVISION, Scene } from 'three';
import { WebGPURenderer } from 'three/webgpu';
import type { ConsumerHandle } from './consumer-handle.ts';

// Cairn's modules extend the host's interfaces by declaration merging (cairn-world/ambient adds the
// `ambient` service), and so can an app: both keys must type-check here.
declare module 'cairn-world/world' {
  interface WorldServices {
    consumerCrowd: Crowd;
  }
}
const SERVICE_KEYS: Array<keyof WorldServices> = ['ambient', 'consumerCrowd'];

export const CLEAR_COLOUR = 0x203040;

export async function start(canvas: HTMLCanvasElement): Promise<ConsumerHandle> {
  const renderer = new WebGPURenderer({ canvas, antialias: false });
  renderer.setSize(canvas.width, canvas.height, false);
  await renderer.init();
  const scene = new Scene();
  scene.background = new Color(CLEAR_COLOUR);
  scene.add(new HemisphereLight(0xffffff, 0x404040, 2));
  const sun = new DirectionalLight(0xffffff, 2);
  sun.position.set(10, 20, 5);
  scene.add(sun);

  // The ground the forest stands on (Cairn's generated terrain; not drawn here).
  const ground = generateTerrain({ seed: 1 });
  const cx = -150;
  const cz = 20;
  const y = ground.sampleHeight(cx, cz);
  const camera = new PerspectiveCamera(55, canvas.width / canvas.height, 0.1, 400);
  camera.position.set(cx, y + 14, cz + 34);
  camera.lookAt(cx, y + 2, cz);

  // Each part under a group of the app's own, so the test can hide one and see the pixels change.
  const parts = { crowd: new Group(), forest: new Group(), ambient: new Group() };
  scene.add(parts.crowd, parts.forest, parts.ambient);

  // A forest painted where the camera looks.
  const forest = new ScatterLayer({ ground, seed: 7, parent: parts.forest, shadows: false });
  await forest.choosePreset('mixed-forest');
  forest.paint(cx, cz, 14);
  forest.update(camera.position, 0);

  // The ambient scatter: regions placed in its Worker, around a point beside the painted forest.
  const ambient = new AmbientScatter({
    ground,
    seed: 3,
    parent: parts.ambient,
    loadRadius: 40,
    detailRadius: 0,
    shadows: false,
    worker: true,
  });
  ambient.update({ x: cx + 40, z: cz - 20 }, camera.position, 0);
  // ready() waits for the Worker's regions; a Worker that failed to start says so in stats.lastError.
  let watch = 0;
  await Promise.race([
    ambient.ready(),
    new Promise<never>((_, reject) => {
      watch = window.setInterval(() => ambient.stats.lastError && reject(new Error(`ambient scatter: ${ambient.stats.lastError}`)), 100);
    }),
  ]).finally(() => clearInterval(watch));

  // A crowd of 200 in front of the trees.
  const template = new CrowdTemplate(createHumanoid({ detail: 'low' }), { name: 'mannequin' });
  const crowd = new Crowd({
    template,
    device: crowdDeviceInfo(renderer),
    castShadow: false,
    palette: [
      [1, 1, 1],
      [0.8, 0.25, 0.2],
    ],
  });
  for (let i = 0; i < 200; i++) {
    const x = cx - 10 + (i % 20);
    const z = cz + 14 + Math.floor(i / 20) * 1.2;
    crowd.add({ x, y: ground.sampleHeight(x, z), z, facing: Math.PI, clip: 'walk', palette: i % 2, time: i * 0.05 });
  }
  parts.crowd.add(crowd.object);

  const audio = new AudioEngine({ seed: 1234, storageKey: null });

  let time = 0;
  const frame = (): void => {
    time += 1 / 30;
    crowd.update(1 / 30, camera);
    forest.update(camera.position, time);
    ambient.update({ x: cx + 40, z: cz - 20 }, camera.position, time);
    renderer.render(scene, camera);
  };
  const shown = async (): Promise<void> => {
    frame();
    await new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve)));
  };
  await shown();

  return {
    revision: REVISION,
    serviceKeys: SERVICE_KEYS,
    backend: (renderer.backend as { isWebGPUBackend?: boolean }).isWebGPUBackend ? 'WebGPU' : 'WebGL2',
    async show(part, visible) {
      parts[part].visible = visible;
      await shown();
    },
    async sound() {
      audio.start();
      const heard = (): boolean =>
        audio.stats.loudness.source === 'worklet' && audio.stats.maxPeak > 0.01 && audio.stats.loudness.momentaryMax > -60;
      for (let i = 0; i < 60 && !heard(); i++) {
        audio.play('strike', { intensity: 1 });
        await new Promise((resolve) => setTimeout(resolve, 150));
      }
      return { source: audio.stats.loudness.source, maxPeak: audio.stats.maxPeak, momentaryMax: audio.stats.loudness.momentaryMax };
    },
    stats() {
      const s = ambient.stats;
      return {
        crowd: { agents: crowd.stats.agents, visible: crowd.stats.visible, gpu: crowd.stats.gpu },
        forest: forest.snapshot().length,
        ambient: { mode: s.mode, placed: s.regions.placed, instances: s.instances, lastError: s.lastError },
      };
    },
  };
}

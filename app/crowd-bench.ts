/**
 * `crowd.html?bench=1`: the crowd benchmark's page, driven by bench/crowd/crowd.bench.ts. For each
 * crowd size it measures main-thread ms per frame for three's default path (a SkinnedMesh clone
 * and an AnimationMixer per avatar) and for Cairn's crowd, same scene, same avatars, same camera:
 * animation (mixers / crowd.update) and render submission (renderer.render) separately.
 *
 * Both paths are driven by the renderer's own animation loop (setAnimationLoop), because three
 * r187 advances its per-frame state (info.reset, the once-per-frame skeleton update) only in that
 * tick; and after each measured frame the page waits for the GPU to finish (WebGPU
 * onSubmittedWorkDone, WebGL2 a fence) so SwiftShader's work never overlaps the timed code.
 * Results land in `cairn.benchResult`.
 */
import { AnimationMixer, Color, DirectionalLight, Group, HemisphereLight, Mesh, MeshStandardMaterial, PerspectiveCamera, PlaneGeometry, Scene, type Object3D } from 'three';
import { clone as cloneSkinned } from 'three/addons/utils/SkeletonUtils.js';
import { Crowd, CrowdTemplate, crowdDeviceInfo } from '../src/crowd/index.ts';
import { Mulberry32 } from '../src/core/rng.ts';
import { createHumanoid } from '../src/rig/humanoid.ts';
import { cairnGlobal, createRenderer } from '../src/world/index.ts';

export interface BenchRow {
  /** 'scene': the same scene without avatars (the fixed cost both paths pay), measured next to each size. */
  path: 'three' | 'cairn' | 'scene';
  count: number;
  frames: number;
  /** Medians over the measured frames, ms. */
  animMs: number;
  renderMs: number;
  totalMs: number;
  drawCalls: number;
  /** Bytes of animation data sent to the GPU per frame. */
  uploadBytes: number;
  live?: number;
  baked?: number;
}

const CLIPS = ['walk', 'idle', 'dance'];

export async function startBench(): Promise<void> {
  const params = new URLSearchParams(location.search);
  const counts = (params.get('counts') ?? '50,100,200,500,1000').split(',').map(Number);
  const framesPerRun = Number(params.get('frames') ?? 8);
  const rounds = Number(params.get('rounds') ?? 2);
  // Unmeasured frames first: the JIT warms up and one-time work (promotions, pipelines) is done.
  const warmup = Number(params.get('warmup') ?? 6);
  // SwiftShader takes seconds per frame for three's path from 500 avatars up (thousands of draws,
  // and the page waits for the GPU every frame): big sizes get fewer frames and one round so the
  // whole benchmark stays at a few minutes. A 20–40× gap needs no interleaving to be seen.
  const bigFrom = Number(params.get('bigFrom') ?? 500);
  const plan = (count: number): { frames: number; warmup: number; rounds: number } =>
    count >= bigFrom ? { frames: Math.max(3, Math.ceil(framesPerRun / 2)), warmup: Math.min(warmup, 2), rounds: 1 } : { frames: framesPerRun, warmup, rounds };
  const cairn = cairnGlobal();
  const { renderer, canvas, status } = await createRenderer({ forceWebGL: params.get('webgl') === '1', antialias: false });
  renderer.shadowMap.enabled = false;
  renderer.setPixelRatio(1);
  renderer.setSize(Number(params.get('width') ?? 480), Number(params.get('height') ?? 270), false);
  document.body.append(canvas);
  cairn.stats.backend = status.backend;

  const scene = new Scene();
  scene.background = new Color(0.55, 0.62, 0.7);
  scene.add(new HemisphereLight(0xc0d0e0, 0x403020, 1.2));
  const sun = new DirectionalLight(0xffffff, 2);
  sun.position.set(-3, 6, 4);
  scene.add(sun);
  const ground = new Mesh(new PlaneGeometry(400, 400), new MeshStandardMaterial({ color: 0x6b7a5a }));
  ground.rotation.x = -Math.PI / 2;
  scene.add(ground);
  const camera = new PerspectiveCamera(55, 16 / 9, 0.1, 500);
  camera.position.set(0, 2.2, 6);
  camera.lookAt(0, 1, -20);

  const humanoid = createHumanoid({ detail: 'low' });
  const template = new CrowdTemplate(humanoid, { name: 'mannequin' });
  const device = crowdDeviceInfo(renderer);

  /** A grid in front of the camera, near to far, the same for both paths. */
  const placements = (count: number): Array<{ x: number; z: number; facing: number; clip: string; time: number }> => {
    const rng = new Mulberry32(count);
    const columns = Math.ceil(Math.sqrt(count * 0.6));
    return Array.from({ length: count }, (_, i) => ({
      x: ((i % columns) - (columns - 1) / 2) * 1.6,
      z: -2 - Math.floor(i / columns) * 1.6,
      facing: rng.range(-Math.PI, Math.PI),
      clip: CLIPS[i % CLIPS.length]!,
      time: rng.range(0, 2),
    }));
  };

  const waitForGpu = async (): Promise<void> => {
    const backend = renderer.backend as unknown as { device?: GPUDevice; gl?: WebGL2RenderingContext };
    if (backend.device) await backend.device.queue.onSubmittedWorkDone();
    else if (backend.gl) {
      const gl = backend.gl;
      const sync = gl.fenceSync(gl.SYNC_GPU_COMMANDS_COMPLETE, 0)!;
      gl.flush();
      while (gl.clientWaitSync(sync, 0, 0) === gl.TIMEOUT_EXPIRED) await new Promise((r) => setTimeout(r, 1));
      gl.deleteSync(sync);
    }
  };

  /** Runs `frames` measured frames (after `warmup` unmeasured ones) through the renderer's animation loop. */
  const measure = (update: (dt: number) => void, frames: number, warmupFrames: number): Promise<{ anim: number[]; render: number[]; draws: number }> =>
    new Promise((resolve) => {
      const anim: number[] = [];
      const render: number[] = [];
      let draws = 0;
      let busy = false;
      let done = -warmupFrames;
      void renderer.setAnimationLoop(() => {
        if (busy) return;
        busy = true;
        const t0 = performance.now();
        update(1 / 60);
        const t1 = performance.now();
        renderer.render(scene, camera);
        const t2 = performance.now();
        draws = renderer.info.render.drawCalls;
        if (done >= 0) {
          anim.push(t1 - t0);
          render.push(t2 - t1);
        }
        done++;
        void waitForGpu().then(() => {
          busy = false;
          if (done >= frames) {
            void renderer.setAnimationLoop(null);
            resolve({ anim, render, draws });
          }
        });
      });
    });

  const runThree = async (count: number): Promise<BenchRow> => {
    const group = new Group();
    const mixers: AnimationMixer[] = [];
    for (const p of placements(count)) {
      const avatar = cloneSkinned(humanoid.object) as Object3D;
      avatar.position.set(p.x, 0, p.z);
      avatar.rotation.y = p.facing;
      const mixer = new AnimationMixer(avatar);
      const action = mixer.clipAction(humanoid.clip(p.clip));
      action.play();
      action.time = p.time;
      mixers.push(mixer);
      group.add(avatar);
    }
    scene.add(group);
    const { frames, warmup: warm } = plan(count);
    const result = await measure((dt) => {
      for (const mixer of mixers) mixer.update(dt);
    }, frames, warm);
    scene.remove(group);
    // Each SkinnedMesh's skeleton uploads its bone matrices every frame (3 pieces share one).
    return row('three', count, result, count * template.boneCount * 64);
  };

  // One crowd for every run, as a page keeps one while its population changes: the clips are
  // baked and the pipelines compiled once (not timed), each run starts from an empty crowd.
  const crowd = new Crowd({ template, device, capacity: Math.max(...counts), castShadow: false });
  const runCairn = async (count: number): Promise<BenchRow> => {
    crowd.clear();
    for (const p of placements(count)) crowd.add({ x: p.x, z: p.z, facing: p.facing, clip: p.clip, time: p.time });
    scene.add(crowd.object);
    let upload = 0;
    const { frames, warmup: warm } = plan(count);
    const result = await measure((dt) => {
      crowd.update(dt, camera);
      upload = crowd.stats.uploadBytes;
    }, frames, warm);
    const out = row('cairn', count, result, upload);
    out.live = crowd.stats.live;
    out.baked = crowd.stats.baked;
    scene.remove(crowd.object);
    return out;
  };

  const runScene = async (count: number): Promise<BenchRow> => {
    const { frames, warmup: warm } = plan(count);
    return row('scene', count, await measure(() => undefined, frames, warm), 0);
  };

  const rows: BenchRow[] = [];
  cairn.benchProgress = { done: 0, total: counts.reduce((sum, count) => sum + plan(count).rounds * 3, 0) + 1 };
  // One unrecorded pass over the empty scene: pipelines compiled, the renderer's code warmed up.
  await runScene(0);
  (cairn.benchProgress as { done: number }).done++;
  cairn.ready = true;
  for (const count of counts) {
    // Interleaved rounds (empty scene, three, Cairn, empty scene, three, Cairn…) so drift hits
    // every path alike; the empty scene is what both paths pay without any avatar.
    for (let round = 0; round < plan(count).rounds; round++) {
      for (const run of [runScene, runThree, runCairn]) {
        rows.push(await run(count));
        (cairn.benchProgress as { done: number }).done++;
      }
    }
  }
  crowd.dispose();
  cairn.benchResult = { backend: status.backend, adapter: status.adapter, frames: framesPerRun, rounds, bigFrom, rows };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

function row(path: BenchRow['path'], count: number, result: { anim: number[]; render: number[]; draws: number }, uploadBytes: number): BenchRow {
  const total = result.anim.map((a, i) => a + result.render[i]!);
  return { path, count, frames: result.anim.length, animMs: median(result.anim), renderMs: median(result.render), totalMs: median(total), drawCalls: result.draws, uploadBytes };
}

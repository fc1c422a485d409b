/**
 * `crowd.html?bench=1`: the crowd benchmark's page, driven by bench/crowd/crowd.bench.ts. For each
 * scenario (`spread`: standing 2–30 m ahead; `near`: all within 8 m, walking) and crowd size it
 * measures main-thread ms per frame for three's default path (a SkinnedMesh clone and an
 * AnimationMixer per avatar) and for Cairn's crowd, same scene, same avatars, same camera:
 * animation (mixers / crowd.update) and render submission (renderer.render) separately.
 * `cairnOnly=2000` adds sizes for Cairn alone; `look=N` puts N avatars under look-at control.
 *
 * Both paths are driven by the renderer's own animation loop (setAnimationLoop), because three
 * r187 advances its per-frame state (info.reset, the once-per-frame skeleton update) only in that
 * tick; and after each frame the page waits for the GPU to finish (WebGPU onSubmittedWorkDone,
 * WebGL2 a fence) so SwiftShader's work never overlaps the timed code. Frames alternate between
 * the scene with the avatars and the same scene without them, so what the avatars add is read
 * against the empty scene measured a frame apart. Results land in `cairn.benchResult`.
 */
import {
  AnimationMixer,
  Color,
  DirectionalLight,
  Group,
  HemisphereLight,
  Mesh,
  MeshStandardMaterial,
  PerspectiveCamera,
  PlaneGeometry,
  Scene,
  type Object3D,
} from 'three';
import { clone as cloneSkinned } from 'three/addons/utils/SkeletonUtils.js';
import { backendHandles, Crowd, CrowdTemplate, crowdDeviceInfo } from '../src/crowd/index.ts';
import { Mulberry32 } from '../src/core/rng.ts';
import { createHumanoid } from '../src/rig/humanoid.ts';
import { createRenderer } from '../src/world/index.ts';
import { pageCairn } from './cairn.ts';

/** What the crowd bench publishes on `window.cairn` (read by bench/crowd). */
export interface CrowdBenchResult {
  backend: string;
  adapter: string | null;
  frames: number;
  rounds: number;
  bigFrom: number;
  rows: BenchRow[];
  baked: { clips: number; rows: number; fps: number; bytes: number; precision: string };
}

declare module '../src/world/cairn-global.ts' {
  interface CairnGlobal {
    /** Runs measured so far, of how many (the crowd bench). */
    benchProgress?: { done: number; total: number };
    /** The crowd bench's figures once it has finished. */
    benchResult?: CrowdBenchResult;
  }
}

/** Where the avatars stand: `spread` 2–30 m ahead, standing; `near` all within 8 m, walking in small circles. */
export type BenchScenario = 'spread' | 'near';

export interface BenchRow {
  scenario: BenchScenario;
  path: 'three' | 'cairn';
  count: number;
  frames: number;
  /** Trimmed means over the measured frames (see trimmedMean), ms. */
  animMs: number;
  renderMs: number;
  totalMs: number;
  /** Render submission of the empty scene (the same frame without avatars), measured in the frames between. */
  baseMs: number;
  /** What the avatars add: totalMs − baseMs. */
  addedMs: number;
  drawCalls: number;
  /** Bytes of animation data sent to the GPU per frame. */
  uploadBytes: number;
  live?: number;
  gpu?: number;
  visible?: number;
}

const CLIPS = ['walk', 'idle', 'dance'];

export async function startBench(): Promise<void> {
  const params = new URLSearchParams(location.search);
  const counts = (params.get('counts') ?? '50,100,200,500,1000').split(',').map(Number);
  const scenarios = (params.get('scenarios') ?? 'spread,near').split(',').filter((s): s is BenchScenario => s === 'spread' || s === 'near');
  // Sizes measured for Cairn alone (three's path takes seconds per frame there on SwiftShader).
  const cairnOnly = (params.get('cairnOnly') ?? '').split(',').filter(Boolean).map(Number);
  const framesPerRun = Number(params.get('frames') ?? 8);
  const rounds = Number(params.get('rounds') ?? 2);
  // Unmeasured frames first: the JIT warms up and one-time work (promotions, pipelines) is done.
  const warmup = Number(params.get('warmup') ?? 6);
  // SwiftShader takes seconds per frame for three's path from 500 avatars up (thousands of draws,
  // and the page waits for the GPU every frame): big sizes get fewer frames and one round so the
  // whole benchmark stays at a few minutes. A 20–40× gap needs no interleaving to be seen.
  const bigFrom = Number(params.get('bigFrom') ?? 500);
  // `paths=cairn` runs one path alone (for a profiler); the comparison needs both.
  const paths = new Set((params.get('paths') ?? 'three,cairn').split(','));
  const plan = (count: number): { frames: number; warmup: number; rounds: number } =>
    count >= bigFrom
      ? { frames: Math.max(3, Math.ceil(framesPerRun / 2)), warmup: Math.min(warmup, 2), rounds: 1 }
      : { frames: framesPerRun, warmup, rounds };
  const cairn = pageCairn();
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

  /**
   * The same avatars for both paths. `spread`: a grid in front of the camera, 2–30 m and beyond.
   * `near`: every avatar within 8 m of the camera, scattered over the half-disc in front of it.
   */
  const placements = (
    scenario: BenchScenario,
    count: number,
  ): Array<{ x: number; z: number; facing: number; clip: string; time: number }> => {
    const rng = new Mulberry32(count);
    const columns = Math.ceil(Math.sqrt(count * 0.6));
    return Array.from({ length: count }, (_, i) => {
      let x: number;
      let z: number;
      if (scenario === 'near') {
        // Uniform over the half-disc 1.5–7.5 m from the camera (at z = 6), in front of it.
        const r = Math.sqrt(rng.range(1.5 * 1.5, 7.5 * 7.5));
        const a = rng.range(-1.1, 1.1);
        x = Math.sin(a) * r;
        z = camera.position.z - Math.cos(a) * r;
      } else {
        x = ((i % columns) - (columns - 1) / 2) * 1.6;
        z = -2 - Math.floor(i / columns) * 1.6;
      }
      return { x, z, facing: rng.range(-Math.PI, Math.PI), clip: CLIPS[i % CLIPS.length]!, time: rng.range(0, 2) };
    });
  };
  /** Near avatars walk in small circles: each frame moves every one of them (a new pose to upload). */
  let walkTime = 0;
  const stride = (i: number): [number, number, number] => {
    const a = walkTime * 0.8 + i;
    return [Math.cos(a) * 0.3, Math.sin(a) * 0.3, a + Math.PI / 2];
  };

  const waitForGpu = async (): Promise<void> => {
    const backend = backendHandles(renderer);
    if (backend.device) await backend.device.queue.onSubmittedWorkDone();
    else if (backend.gl) {
      const gl = backend.gl;
      const sync = gl.fenceSync(gl.SYNC_GPU_COMMANDS_COMPLETE, 0)!;
      gl.flush();
      while (gl.clientWaitSync(sync, 0, 0) === gl.TIMEOUT_EXPIRED) await new Promise((r) => setTimeout(r, 1));
      gl.deleteSync(sync);
    }
  };

  /**
   * Runs `frames` measured frame pairs (after `warmup` unmeasured ones) through the renderer's
   * animation loop. Each pair is one frame with the avatars (`show(true)`, `update`, render) and
   * one without them (`show(false)`, render only): the second is the empty scene measured right
   * next to the first, so what the avatars add is a difference of neighbouring frames and the
   * machine's drift (other processes, clock changes) cancels out instead of swamping sub-ms costs.
   */
  const measure = (show: (shown: boolean) => void, update: (dt: number) => void, frames: number, warmupFrames: number): Promise<Measured> =>
    new Promise((resolve) => {
      const out: Measured = { anim: [], render: [], base: [], draws: 0 };
      let busy = false;
      let done = -warmupFrames * 2;
      void renderer.setAnimationLoop(() => {
        if (busy) return;
        busy = true;
        const withAvatars = (done & 1) === 0;
        show(withAvatars);
        const t0 = performance.now();
        if (withAvatars) update(2 / 60);
        const t1 = performance.now();
        renderer.render(scene, camera);
        const t2 = performance.now();
        if (withAvatars) out.draws = renderer.info.render.drawCalls;
        if (done >= 0) {
          if (withAvatars) {
            out.anim.push(t1 - t0);
            out.render.push(t2 - t1);
          } else out.base.push(t2 - t1);
        }
        done++;
        void waitForGpu().then(() => {
          busy = false;
          if (done >= frames * 2) {
            void renderer.setAnimationLoop(null);
            show(false);
            resolve(out);
          }
        });
      });
    });

  const runThree = async (scenario: BenchScenario, count: number): Promise<BenchRow> => {
    const group = new Group();
    const mixers: AnimationMixer[] = [];
    const avatars: Object3D[] = [];
    const spots = placements(scenario, count);
    for (const p of spots) {
      const avatar = cloneSkinned(humanoid.object) as Object3D;
      avatar.position.set(p.x, 0, p.z);
      avatar.rotation.y = p.facing;
      const mixer = new AnimationMixer(avatar);
      const action = mixer.clipAction(humanoid.clip(p.clip));
      action.play();
      action.time = p.time;
      mixers.push(mixer);
      avatars.push(avatar);
      group.add(avatar);
    }
    scene.add(group);
    const { frames, warmup: warm } = plan(count);
    const result = await measure(
      (shown) => (group.visible = shown),
      (dt) => {
        if (scenario === 'near') {
          walkTime += dt;
          for (let i = 0; i < avatars.length; i++) {
            const [dx, dz, facing] = stride(i);
            avatars[i]!.position.set(spots[i]!.x + dx, 0, spots[i]!.z + dz);
            avatars[i]!.rotation.y = facing;
          }
        }
        for (const mixer of mixers) mixer.update(dt);
      },
      frames,
      warm,
    );
    scene.remove(group);
    // Each SkinnedMesh's skeleton uploads its bone matrices every frame (3 pieces share one).
    return row(scenario, 'three', count, result, count * template.boneCount * 64);
  };

  // One crowd for every run, as a page keeps one while its population changes: the clips are
  // baked and the pipelines compiled once (not timed), each run starts from an empty crowd.
  // `liveEnter=…&liveExit=…&maxLive=…&fullRateDistance=…&rateBand=…` override the crowd's LOD defaults (to see what the live path costs).
  const lod: Record<string, number> = {};
  for (const key of ['liveEnter', 'liveExit', 'maxLive', 'fullRateDistance', 'rateBand'] as const)
    if (params.has(key)) lod[key] = Number(params.get(key));
  const crowd = new Crowd({ template, device, capacity: Math.max(...counts, ...cairnOnly), castShadow: false, lod });
  // `look=N`: N avatars per run under procedural control (a head turn): what the live path costs.
  const look = Number(params.get('look') ?? 0);
  const runCairn = async (scenario: BenchScenario, count: number): Promise<BenchRow> => {
    crowd.clear();
    const spots = placements(scenario, count);
    const agents = spots.map((p) => crowd.add({ x: p.x, z: p.z, facing: p.facing, clip: p.clip, time: p.time }));
    for (const agent of agents.slice(0, look)) agent.setControl({ reason: 'look-at' });
    scene.add(crowd.object);
    let upload = 0;
    const { frames, warmup: warm } = plan(count);
    const result = await measure(
      (shown) => (crowd.object.visible = shown),
      (dt) => {
        if (scenario === 'near') {
          walkTime += dt;
          for (let i = 0; i < agents.length; i++) {
            const [dx, dz, facing] = stride(i);
            agents[i]!.setTransform(spots[i]!.x + dx, 0, spots[i]!.z + dz, facing);
          }
        }
        crowd.update(dt, camera);
        upload = crowd.stats.uploadBytes;
      },
      frames,
      warm,
    );
    const out = row(scenario, 'cairn', count, result, upload);
    out.live = crowd.stats.live;
    out.gpu = crowd.stats.gpu;
    out.visible = crowd.stats.visible;
    scene.remove(crowd.object);
    return out;
  };

  const rows: BenchRow[] = [];
  const progress = (cairn.benchProgress = {
    done: 0,
    total: scenarios.length * (counts.reduce((sum, count) => sum + plan(count).rounds * paths.size, 0) + cairnOnly.length) + 1,
  });
  // One unrecorded pass over the empty scene: pipelines compiled, the renderer's code warmed up.
  await measure(
    () => undefined,
    () => undefined,
    4,
    2,
  );
  progress.done++;
  cairn.ready = true;
  for (const scenario of scenarios) {
    for (const count of counts) {
      // Interleaved rounds (three, Cairn, three, Cairn…) so slow drift hits both paths alike.
      for (let round = 0; round < plan(count).rounds; round++) {
        for (const run of [runThree, runCairn]) {
          if (!paths.has(run === runThree ? 'three' : 'cairn')) continue;
          rows.push(await run(scenario, count));
          progress.done++;
        }
      }
    }
    for (const count of cairnOnly) {
      rows.push(await runCairn(scenario, count));
      progress.done++;
    }
  }
  const baked = {
    clips: crowd.stats.clips,
    rows: crowd.stats.bakedRows,
    fps: crowd.stats.bakedFps,
    bytes: crowd.stats.bakedBytes,
    precision: crowd.stats.bakedPrecision,
  };
  crowd.dispose();
  cairn.benchResult = { backend: status.backend, adapter: status.adapter, frames: framesPerRun, rounds, bigFrom, rows, baked };
}

/**
 * Mean of the middle 60 % of the values. Chromium coarsens `performance.now()` to 0.1 ms (with
 * jitter), so a median of per-frame times can only move in 0.1 ms steps; a mean of many frames
 * resolves below that step, and dropping the outer 20 % each side keeps a GC pause or a
 * scheduler hiccup from moving it.
 */
function trimmedMean(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const cut = Math.floor(sorted.length * 0.2);
  const kept = sorted.slice(cut, sorted.length - cut);
  return kept.reduce((sum, v) => sum + v, 0) / kept.length;
}

interface Measured {
  anim: number[];
  render: number[];
  /** The empty-scene frames between the measured ones. */
  base: number[];
  draws: number;
}

function row(scenario: BenchScenario, path: BenchRow['path'], count: number, result: Measured, uploadBytes: number): BenchRow {
  const total = result.anim.map((a, i) => a + result.render[i]!);
  const totalMs = trimmedMean(total);
  const baseMs = trimmedMean(result.base);
  return {
    scenario,
    path,
    count,
    frames: result.anim.length,
    animMs: trimmedMean(result.anim),
    renderMs: trimmedMean(result.render),
    totalMs,
    baseMs,
    addedMs: totalMs - baseMs,
    drawCalls: result.draws,
    uploadBytes,
  };
}

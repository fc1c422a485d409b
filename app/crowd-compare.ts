/**
 * `crowd.html?scene=compare`: one character in one pose, drawn three ways in the same place —
 * three's own SkinnedMesh + AnimationMixer, the crowd's live path (ClipSampler) and its GPU path
 * (clip time, crossfade and speed evaluated in the vertex shader from the crowd clock) — so a test
 * can compare the images. Plain lit scene with a shadow-receiving floor (shadows come from the
 * same skinned position), fixed camera. `cairn.compare.show('three' | 'live' | 'gpu')` switches;
 * `crossfade(…)` and `speedChange(…)` put all three at the same instant of a fade or after a
 * speed change.
 */
import { AnimationMixer, Color, DirectionalLight, HemisphereLight, Mesh, MeshStandardMaterial, PlaneGeometry } from 'three';
import {
  Crowd,
  CrowdTemplate,
  crowdDeviceInfo,
  type AgentMode,
  type BonePath,
  type CrowdAgent,
  type CrowdStats,
} from '../src/crowd/index.ts';
import { createHumanoid } from '../src/rig/humanoid.ts';
import { createStage } from '../src/world/index.ts';
import { pageStageOptions } from './cairn.ts';

export type CompareView = 'three' | 'live' | 'gpu' | 'none';

/** What the comparison scene publishes as `cairn.compare`. */
export interface CrowdCompareApi {
  /** Shows one of the three renderings (or none: the empty floor). */
  show(view: CompareView): void;
  /**
   * Restarts both crowd avatars on `from` at `time`, starts a crossfade to `to` lasting `fade`
   * seconds, and holds them `elapsed` seconds into it.
   */
  crossfade(from: string, time: number, to: string, fade: number, elapsed: number): void;
  /**
   * Starts `clip` at `time`, plays `before` seconds at speed 1, switches to `speed` and plays
   * `after` seconds more; three's mesh is posed at the clip time that adds up to.
   */
  speedChange(clip: string, time: number, before: number, speed: number, after: number): void;
  /** Poses three's SkinnedMesh at another time (a control: the images must then differ). */
  setReferenceTime(time: number): void;
  /** Each crowd avatar's path (live or GPU). */
  modes(): AgentMode[];
  /** The bone path in use. */
  path: BonePath;
}

/** What the comparison scene publishes as `cairn.stats.compare`: each crowd's figures and the view on screen. */
export interface CrowdCompareStats {
  live: CrowdStats;
  gpu: CrowdStats;
  view: CompareView;
}

declare module '../src/world/cairn-global.ts' {
  interface CairnStats {
    /** The comparison scene's figures (its own key: `stats.crowd` is the crowd pages' `CrowdPageStats`). */
    compare?: CrowdCompareStats;
  }
  interface CairnGlobal {
    /** The comparison scene's controls (crowd.html?scene=compare). */
    compare?: CrowdCompareApi;
    /** True once the comparison scene has drawn its first frames. */
    compareReady?: boolean;
    /** The comparison scene's live-path crowd. */
    crowdLive?: Crowd;
    /** The comparison scene's GPU-path crowd. */
    crowdGpu?: Crowd;
  }
}

export async function startCompare(): Promise<void> {
  const params = new URLSearchParams(location.search);
  const stage = await createStage({ ...pageStageOptions(params), hud: params.get('hud') === '1' });
  // Nothing but the scene in the picture: the page's help line would cover the feet.
  document.querySelector<HTMLElement>('.cairn-help')?.remove();
  const { scene, camera } = stage;
  scene.background = new Color(0.55, 0.62, 0.7);
  scene.add(new HemisphereLight(new Color(0.75, 0.8, 0.9), new Color(0.3, 0.26, 0.22), 1.2));
  const sun = new DirectionalLight(new Color(1, 0.96, 0.9), 2.6);
  sun.position.set(-2, 5, 3);
  sun.castShadow = true;
  sun.shadow.mapSize.set(1024, 1024);
  Object.assign(sun.shadow.camera, { left: -2, right: 2, top: 2.5, bottom: -0.5, near: 0.5, far: 12 });
  sun.shadow.bias = -0.0005;
  scene.add(sun);
  const floor = new Mesh(new PlaneGeometry(8, 8), new MeshStandardMaterial({ color: new Color(0.42, 0.45, 0.4), roughness: 0.9 }));
  floor.rotation.x = -Math.PI / 2;
  floor.receiveShadow = true;
  scene.add(floor);
  camera.position.set(0.3, 1.05, 3.1);
  camera.lookAt(0, 0.92, 0);

  // The pose under test: walk mid-stride, turned, off the origin (exercises the instance transform).
  const clipName = params.get('clip') ?? 'walk';
  const time = Number(params.get('time') ?? 10 / 30);
  const facing = Number(params.get('facing') ?? 0.5);
  const place = { x: 0.15, y: 0.02, z: -0.1 };

  // three's default path: a SkinnedMesh per piece, a mixer, three's own skinning.
  const reference = createHumanoid({ detail: 'low' });
  reference.object.position.set(place.x, place.y, place.z);
  reference.object.rotation.y = facing;
  scene.add(reference.object);
  const mixer = new AnimationMixer(reference.object);
  /** three's pose: `clip` at `t`, optionally blended from `previous` at `previousTime` (weight of `clip`: `weight`). */
  const poseBlend = (clip: string, t: number, previous?: string, previousTime = 0, weight = 1): void => {
    mixer.stopAllAction();
    const action = mixer.clipAction(reference.clip(clip));
    action.play();
    action.time = t;
    action.setEffectiveWeight(previous ? weight : 1);
    if (previous) {
      const out = mixer.clipAction(reference.clip(previous));
      out.play();
      out.time = previousTime;
      out.setEffectiveWeight(1 - weight);
    }
    mixer.update(0);
  };
  const poseReference = (t: number): void => poseBlend(clipName, t);
  poseReference(time);

  // The crowd twice: one avatar under procedural control (live), one plain (GPU-animated).
  const template = new CrowdTemplate(createHumanoid({ detail: 'low' }), { name: 'mannequin' });
  const device = crowdDeviceInfo(stage.renderer);
  const requested = params.get('bonePath');
  const path: BonePath | 'auto' = requested === 'storage' || requested === 'texture' ? requested : 'auto';
  const live = new Crowd({ template, device, path, lod: { liveEnter: 1e4, liveExit: 2e4, fullRateDistance: 3e4, minDwell: 0 } });
  const gpu = new Crowd({ template, device, path });
  const crowds = [live, gpu];
  const agents: CrowdAgent[] = [];
  const spawn = (i: number, clip: string, t: number): CrowdAgent => {
    agents[i]?.remove();
    const agent = crowds[i]!.add({ ...place, facing, clip, time: t });
    // An empty control: the live path with nothing procedural on top, to compare with the mixer.
    if (crowds[i] === live) agent.setControl({ reason: 'compare' });
    agents[i] = agent;
    return agent;
  };
  for (const [i, crowd] of crowds.entries()) {
    scene.add(crowd.object);
    spawn(i, clipName, time);
  }

  let view: CompareView = 'three';
  const apply = (): void => {
    reference.object.visible = view === 'three';
    live.object.visible = view === 'live';
    gpu.object.visible = view === 'gpu';
  };
  apply();
  // Time stands still: every view shows the same instant.
  stage.onFrame(() => {
    live.update(0, camera);
    gpu.update(0, camera);
    stage.cairn.stats.compare = { live: live.stats, gpu: gpu.stats, view };
  });
  const smooth = (s: number): number => s * s * (3 - 2 * s);
  const wrap = (clip: string, t: number): number => {
    const d = reference.clip(clip).duration;
    return ((t % d) + d) % d;
  };

  const compare: CrowdCompareApi = {
    /** Shows one of the three renderings (or none: the empty floor). */
    show(next: CompareView) {
      view = next;
      apply();
    },
    /**
     * Restarts both crowd avatars on `from` at `time`, starts a crossfade to `to` lasting `fade`
     * seconds, and holds them `elapsed` seconds into it.
     */
    crossfade(from: string, time: number, to: string, fade: number, elapsed: number) {
      for (const [i, crowd] of crowds.entries()) {
        const agent = spawn(i, from, time);
        crowd.update(0, camera);
        agent.play(to, { fade });
        crowd.update(elapsed, camera);
      }
      // three: both actions at the same times, the incoming one at the eased weight.
      poseBlend(to, wrap(to, elapsed), from, wrap(from, time + elapsed), smooth(Math.min(1, elapsed / fade)));
    },
    /**
     * Starts `clip` at `time`, plays `before` seconds at speed 1, switches to `speed` and plays
     * `after` seconds more; three's mesh is posed at the clip time that adds up to.
     */
    speedChange(clip: string, time: number, before: number, speed: number, after: number) {
      for (const [i, crowd] of crowds.entries()) {
        const agent = spawn(i, clip, time);
        crowd.update(0, camera);
        crowd.update(before, camera);
        agent.play(clip, { speed });
        crowd.update(after, camera);
      }
      poseBlend(clip, wrap(clip, time + before + speed * after));
    },
    /** Poses three's SkinnedMesh at another time (a control: the images must then differ). */
    setReferenceTime: poseReference,
    modes: () => agents.map((a) => a.mode),
    path: live.pathChoice.path,
  };
  Object.assign(stage.cairn, { compare, crowdLive: live, crowdGpu: gpu });
  stage.start();
  await stage.frames(2);
  stage.cairn.compareReady = true;
}

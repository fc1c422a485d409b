/**
 * `crowd.html?scene=compare`: one character in one pose, drawn three ways in the same place —
 * three's own SkinnedMesh, the batched renderer's live path, and its baked path — so a test can
 * compare the images. Plain lit scene with a shadow-receiving floor (shadows come from the same
 * skinned position), fixed camera. `cairn.compare.show('three' | 'live' | 'baked')` switches.
 */
import { AnimationMixer, Color, DirectionalLight, HemisphereLight, Mesh, MeshStandardMaterial, PlaneGeometry } from 'three';
import { Crowd, CrowdTemplate, crowdDeviceInfo, type BonePath, type CrowdAgent } from '../src/crowd/index.ts';
import { createHumanoid } from '../src/rig/humanoid.ts';
import { createStage } from '../src/world/index.ts';

export type CompareView = 'three' | 'live' | 'baked' | 'none';

export async function startCompare(): Promise<void> {
  const params = new URLSearchParams(location.search);
  const stage = await createStage({ hud: params.get('hud') === '1' });
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
  const action = mixer.clipAction(reference.clip(clipName));
  action.play();
  const poseReference = (t: number): void => {
    action.time = t;
    mixer.update(0);
  };
  poseReference(time);

  // The batched renderer, forced live and forced baked (two crowds from one template).
  const template = new CrowdTemplate(createHumanoid({ detail: 'low' }), { name: 'mannequin' });
  const device = crowdDeviceInfo(stage.renderer);
  const requested = params.get('bonePath');
  const path: BonePath | 'auto' = requested === 'storage' || requested === 'texture' ? requested : 'auto';
  const live = new Crowd({ template, device, path, lod: { liveEnter: 1e4, liveExit: 2e4, minDwell: 0 } });
  const baked = new Crowd({ template, device, path, lod: { maxLive: 0 } });
  const agents: CrowdAgent[] = [];
  for (const crowd of [live, baked]) {
    scene.add(crowd.object);
    agents.push(crowd.add({ ...place, facing, clip: clipName, time }));
  }

  let view: CompareView = 'three';
  const apply = (): void => {
    reference.object.visible = view === 'three';
    live.object.visible = view === 'live';
    baked.object.visible = view === 'baked';
  };
  apply();
  // Time stands still: every view shows the same instant.
  stage.onFrame(() => {
    live.update(0, camera);
    baked.update(0, camera);
    stage.cairn.stats.crowd = { live: live.stats, baked: baked.stats, view };
  });

  Object.assign(stage.cairn, {
    compare: {
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
        for (const [i, crowd] of [live, baked].entries()) {
          agents[i]!.remove();
          agents[i] = crowd.add({ ...place, facing, clip: from, time });
          crowd.update(0, camera);
          agents[i]!.play(to, { fade });
          crowd.update(elapsed, camera);
        }
      },
      /** Poses three's SkinnedMesh at another time (a control: the images must then differ). */
      setReferenceTime: poseReference,
      modes: () => agents.map((a) => a.mode),
      path: live.pathChoice.path,
    },
    crowdLive: live,
    crowdBaked: baked,
  });
  stage.start();
  await stage.frames(2);
  stage.cairn.compareReady = true;
}

import type { AnimationClip } from 'three';
import type { World } from '../../src/world/world.ts';
import type { WorldPlugin } from '../../src/world/plugins.ts';
import { bindReferenceKey, ReferenceView } from '../../src/anim/view/reference-view.ts';

/**
 * The animation reference view in the world: backslash shows the source rig (the mannequin with the
 * clip library) beside the player, playing the clip the player plays at the same time, so "is that
 * twist in the source or added by retargeting?" is answered by looking. Idle cost is one key
 * listener: the reference character and its clips are built on the first backslash.
 */
export const plugin: WorldPlugin = { name: 'anim', provides: ['anim'], needs: ['avatar'], install };

function install(world: World): () => void {
  const stats = { reference: false, clip: null as string | null, missing: null as string | null, time: 0 };
  world.cairn.stats.anim = stats;
  let view: ReferenceView | null = null;
  let loading: Promise<ReferenceView> | null = null;

  const load = (): Promise<ReferenceView> =>
    (loading ??= Promise.all([import('../../src/rig/humanoid.ts'), import('../../src/anim/library/index.ts')]).then(
      ([{ createHumanoid }, library]) => {
        const source = createHumanoid();
        source.object.name = 'anim-reference';
        world.scene.add(source.object);
        // The player's own clips first (the world's mannequin clips), then the library, in place.
        const cache = new Map<string, AnimationClip | null>();
        const resolveClip = (name: string): AnimationClip | null => {
          if (!cache.has(name)) {
            const own = source.clips.find((c) => c.name === name);
            cache.set(
              name,
              own ?? (library.ANIMATION_LIBRARY.some((d) => d.name === name) ? library.withoutRootMotion(library.libraryClip(name)) : null),
            );
          }
          return cache.get(name)!;
        };
        view = new ReferenceView({ source: source.object, resolveClip });
        return view;
      },
    ));

  const toggle = async (): Promise<boolean> => {
    const reference = await load();
    stats.reference = reference.toggle();
    return stats.reference;
  };

  const unbindKey = bindReferenceKey(() => void toggle());

  const removeFrame = world.onFrame(() => {
    if (!view?.visible) return;
    const player = world.player.state;
    const driver = world.services.get('avatar')?.animation;
    if (!driver) return;
    const clip = driver.clip;
    const action = clip ? driver.mixer.existingAction(clip) : null;
    // Stand on the ground beside the player; in the air or in the water, at the player's height.
    const offsetX = Math.cos(player.facing) * 1.1;
    const offsetZ = -Math.sin(player.facing) * 1.1;
    const onGround = player.state !== 'jump' && player.state !== 'swim';
    const groundY = onGround ? world.heightmap.sampleHeight(player.x + offsetX, player.z + offsetZ) : player.y;
    view.update(
      { x: player.x, y: player.y, z: player.z, facing: player.facing, clip: clip?.name ?? null, time: action?.time ?? 0 },
      groundY,
    );
    stats.clip = view.clip;
    stats.missing = view.missing;
    stats.time = action?.time ?? 0;
  });

  const removeSection = world.hud?.addSection('anim', {
    title: 'Animation',
    rows: () => [
      { label: 'reference (\\)', value: stats.reference ? `source: ${stats.clip ?? '—'}` : 'off' },
      ...(stats.missing ? [{ label: 'missing', value: `source has no "${stats.missing}"`, tone: 'warn' as const }] : []),
    ],
  });
  const withdraw = world.services.provide('anim', {
    toggleReference: toggle,
    get reference() {
      return view;
    },
  });

  return () => {
    unbindKey();
    removeFrame();
    removeSection?.();
    withdraw();
    view?.dispose();
  };
}

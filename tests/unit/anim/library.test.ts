import { AnimationMixer, Group, Vector3, type AnimationClip, type VectorKeyframeTrack } from 'three';
import { describe, expect, it, vi } from 'vitest';
import { ANIMATION_LIBRARY, createAnimationLibrary, LIBRARY_ALIASES, type LibraryClipData } from '../../../src/anim/library/index.ts';
import { AnimationStateMachine } from '../../../src/anim/state-machine.ts';
import { HUMANOID_CLIPS } from '../../../src/rig/clips.ts';
import { MANNEQUIN } from '../../../src/rig/mannequin.ts';
import { buildSkeleton } from '../../../src/rig/skeleton-def.ts';

// Whole-library work: seconds on an idle machine, more when the test run shares the cores.
vi.setConfig({ testTimeout: 30_000 });

const library = createAnimationLibrary();
const clip = (name: string): AnimationClip => library.find((c) => c.name === name)!;
const data = (c: AnimationClip): LibraryClipData => c.userData as LibraryClipData;
const track = (c: AnimationClip, name: string) => c.tracks.find((t) => t.name === name);

describe('the animation library', () => {
  it('has 40+ clips covering locomotion, jump, swim (crawl and in place), climb, dodge, hits, a sword combo, a bow draw and emotes', () => {
    expect(library.length).toBeGreaterThanOrEqual(40);
    expect(new Set(library.map((c) => c.name)).size).toBe(library.length);
    const categories = new Set(library.map((c) => data(c).category));
    expect([...categories].sort()).toEqual(['bow', 'climb', 'dodge', 'emote', 'hit', 'jump', 'locomotion', 'swim', 'sword']);
    for (const name of [
      'idle',
      'walk_fwd',
      'walk_back',
      'walk_left',
      'walk_right',
      'run_fwd',
      'sprint',
      'crouch_walk',
      'turn_left',
      'jump',
      'jump_forward',
      'swim_freestyle',
      'swim_tread',
      'climb_ladder',
      'climb_ledge',
      'dodge_left',
      'roll_forward',
      'hit_front',
      'knockback',
      'sword_combo',
      'bow_draw',
      'wave',
      'dance',
    ]) {
      expect(
        library.some((c) => c.name === name),
        name,
      ).toBe(true);
    }
    expect(library.filter((c) => data(c).category === 'locomotion').length).toBeGreaterThanOrEqual(12);
  });

  it('drives only mannequin bones, and every clip is valid', () => {
    const bones = new Set(MANNEQUIN.bones.map((b) => b.name));
    for (const c of library) {
      expect(c.validate(), c.name).toBe(true);
      for (const t of c.tracks) expect(bones.has(t.name.split('.')[0]!), `${c.name}: ${t.name}`).toBe(true);
      expect(data(c).description.length, c.name).toBeGreaterThan(5);
    }
  });

  it('carries root motion on the root bone, not the pelvis: walk travels speed × duration along +Z', () => {
    const walk = clip('walk_fwd');
    expect(data(walk).rootMotion).toBe(true);
    const root = track(walk, 'root.position') as VectorKeyframeTrack;
    const values = root.values;
    expect(values[values.length - 1]! - values[2]!).toBeCloseTo(data(walk).speed * walk.duration, 3);
    // The pelvis keeps only bob and sway: it stays within a few centimetres of its bind x/z.
    const pelvis = track(walk, 'pelvis.position')!.values;
    for (let i = 0; i < pelvis.length; i += 3) expect(Math.hypot(pelvis[i]!, pelvis[i + 2]!)).toBeLessThan(0.05);
    // A knockback travels backwards, a ladder climb upwards, a turn rotates the root.
    const back = track(clip('knockback'), 'root.position')!.values;
    expect(back[back.length - 1]!).toBeLessThan(-1.5);
    const ladder = track(clip('climb_ladder'), 'root.position')!.values;
    expect(ladder[ladder.length - 2]! - ladder[1]!).toBeGreaterThan(0.5);
    expect(track(clip('turn_left'), 'root.quaternion')).toBeDefined();
    // Clips that stay put carry no root track.
    expect(track(clip('idle_alert'), 'root.position')).toBeUndefined();
  });

  it('bakes in place on request (no root tracks)', () => {
    const inPlace = createAnimationLibrary({ rootMotion: false });
    expect(inPlace.some((c) => c.tracks.some((t) => t.name.startsWith('root.')))).toBe(false);
    expect(inPlace.length).toBe(library.length);
  });

  it('gives swim clips a rig offset, deeper for treading water than for the crawl', () => {
    const tread = data(clip('swim_tread')).rigOffset!;
    const crawl = data(clip('swim_freestyle')).rigOffset!;
    expect(tread).toBeLessThan(crawl);
    expect(tread).toBeLessThan(0);
    expect(data(clip('swim_breaststroke')).rigOffset).toBeGreaterThan(tread);
    expect(data(clip('walk_fwd')).rigOffset).toBeUndefined();
  });

  it('closes the right hand around the sword hilt in every sword frame', () => {
    for (const c of library.filter((x) => data(x).category === 'sword' && x.name !== 'sword_sheathe')) {
      const curl = track(c, 'middle_02_r.quaternion')!.values;
      for (let i = 0; i < curl.length; i += 4) {
        const angle = 2 * Math.acos(Math.min(1, Math.abs(curl[i + 3]!)));
        expect(angle, c.name).toBeGreaterThan(1.0);
      }
    }
  });

  it('keeps the lower foot on the floor in grounded locomotion, on its heel, sole or ball (played through a mixer)', () => {
    const { root, byName } = buildSkeleton(MANNEQUIN);
    const group = new Group();
    group.add(root);
    const mixer = new AnimationMixer(group);
    const p = new Vector3();
    for (const name of ['walk_back', 'walk_left', 'jog_fwd', 'crouch_walk']) {
      mixer.stopAllAction();
      const action = mixer.clipAction(clip(name)).play();
      for (let f = 0; f < 30; f++) {
        action.time = (f / 30) * clip(name).duration;
        mixer.update(0);
        group.updateMatrixWorld(true);
        const root = p.setFromMatrixPosition(byName.get('root')!.matrixWorld).clone();
        // A step touches the floor flat, on its heel or on its ball (the feet are pitched so no sole
        // goes under): the lower of the ankles and balls, against its bind height, is on the floor.
        const above = (bone: string, bind: number): number => p.setFromMatrixPosition(byName.get(bone)!.matrixWorld).y - root.y - bind;
        const low = Math.min(above('foot_l', 0.085), above('foot_r', 0.085), above('ball_l', 0.025), above('ball_r', 0.025));
        expect(low, name).toBeGreaterThan(-0.005);
        expect(low, name).toBeLessThan(0.01);
      }
    }
  });

  it("keeps the mannequin's own six clips untouched (the world and the crowd use them)", () => {
    expect([...HUMANOID_CLIPS]).toEqual(['idle', 'walk', 'run', 'jump', 'wave', 'dance']);
    expect(ANIMATION_LIBRARY.find((d) => d.name === 'walk_fwd')!.duration).toBe(1.1);
  });

  it("maps the state machine's generic states to library clips", () => {
    const fsm = new AnimationStateMachine({ aliases: { ...LIBRARY_ALIASES }, clips: library.map((c) => c.name), initial: 'idle' });
    for (const state of Object.keys(LIBRARY_ALIASES)) expect(() => fsm.resolve(state), state).not.toThrow();
    expect(fsm.resolve('swim')).toBe('swim_tread');
    expect(fsm.resolve('walk')).toBe('walk_fwd');
  });
});

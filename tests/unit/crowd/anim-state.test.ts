import { describe, expect, it } from 'vitest';
import { AnimState, clipTime } from '../../../src/crowd/anim-state.ts';
import { bakedFrame, bakedFrameTime, planBake } from '../../../src/crowd/baked-layout.ts';

const clips = [
  { name: 'idle', duration: 4, loop: true },
  { name: 'walk', duration: 1.1, loop: true },
  { name: 'jump', duration: 1, loop: false },
];

describe('AnimState', () => {
  it('wraps looping clips and holds the last frame of one-shots', () => {
    expect(clipTime(5.5, clips[0]!)).toBeCloseTo(1.5);
    expect(clipTime(-0.5, clips[1]!)).toBeCloseTo(0.6);
    expect(clipTime(3, clips[2]!)).toBe(1);
    expect(clipTime(1, { duration: 0, loop: true })).toBe(0);
    const state = new AnimState(2);
    state.advance(0.7, clips);
    state.advance(0.7, clips);
    expect(state.time).toBe(1);
  });

  it('crossfades: the new clip’s weight eases from 0 to 1, then the old clip is dropped', () => {
    const state = new AnimState(0, 1.2);
    state.play(1, { fade: 0.4 });
    let sample = state.sample();
    expect(sample).toMatchObject({ clip: 1, time: 0, previousClip: 0, previousTime: 1.2, weight: 0 });
    state.advance(0.2, clips);
    sample = state.sample();
    expect(sample.weight).toBeCloseTo(0.5);
    expect(sample.previousTime).toBeCloseTo(1.4);
    expect(sample.time).toBeCloseTo(0.2);
    state.advance(0.25, clips);
    sample = state.sample();
    expect(sample.weight).toBe(1);
    expect(sample.previousClip).toBe(-1);
  });

  it('asking for the clip already playing only changes its speed; fade 0 cuts', () => {
    const state = new AnimState(1, 0.3);
    state.play(1, { speed: 1.5 });
    expect(state.sample()).toMatchObject({ clip: 1, time: 0.3, previousClip: -1 });
    expect(state.speed).toBe(1.5);
    state.play(0, { fade: 0 });
    expect(state.sample()).toMatchObject({ clip: 0, previousClip: -1, weight: 1 });
  });

  it('an interrupted crossfade fades out of whichever clip dominates, so the pose does not jump', () => {
    const state = new AnimState(0);
    state.play(1, { fade: 1 });
    state.advance(0.1, clips); // weight of walk ≈ 0.03: idle still dominates
    state.play(2, { fade: 0.5 });
    expect(state.sample().previousClip).toBe(0);
    const other = new AnimState(0);
    other.play(1, { fade: 1 });
    other.advance(0.9, clips); // walk dominates now
    other.play(2, { fade: 0.5 });
    expect(other.sample().previousClip).toBe(1);
  });
});

describe('baked layout', () => {
  it('lays clips out row after row with both ends baked', () => {
    const plan = planBake(clips, 30);
    expect(plan.clips.map((c) => [c.startRow, c.frames])).toEqual([
      [0, 121],
      [121, 34],
      [155, 31],
    ]);
    expect(plan.rows).toBe(186);
    expect(bakedFrameTime(plan.clips[1]!, 33)).toBeCloseTo(1.1);
  });

  it('resolves a time to two neighbouring rows and the blend between them', () => {
    const plan = planBake(clips, 30);
    const walk = plan.clips[1]!;
    const step = walk.duration / (walk.frames - 1);
    expect(bakedFrame(walk, 0)).toEqual({ row0: 121, row1: 122, frac: 0 });
    const mid = bakedFrame(walk, step * 10.25);
    expect(mid.row0).toBe(131);
    expect(mid.row1).toBe(132);
    expect(mid.frac).toBeCloseTo(0.25);
    // The very end lands on the last row exactly (blend 1 towards it).
    const end = bakedFrame(walk, walk.duration);
    expect(end.row0 + end.frac).toBeCloseTo(121 + 33);
  });

  it('lowers the frame rate when the table would not fit the texture, and says so', () => {
    const plan = planBake([{ name: 'long', duration: 120, loop: true }, ...clips], 30, 2048);
    expect(plan.rows).toBeLessThanOrEqual(2048);
    expect(plan.fps).toBeLessThan(30);
    expect(plan.fps).toBeGreaterThan(10);
    expect(() => planBake([], 30)).toThrow(/no clips/);
  });

  it('bakes a clip without duration (a bind pose) as a single row', () => {
    const plan = planBake([{ name: 'bind', duration: 0, loop: true }]);
    expect(plan.rows).toBe(1);
    expect(bakedFrame(plan.clips[0]!, 3)).toEqual({ row0: 0, row1: 0, frac: 0 });
  });
});

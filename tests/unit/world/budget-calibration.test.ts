// @vitest-environment node
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { GpuBudget } from '../../../src/crowd/gpu-budget.ts';
import { BudgetCalibrator } from '../../../src/world/budget-calibration.ts';

/** A stage stand-in: afterRender callbacks run by `frame(gpuMs)`. */
function fakeStage() {
  const callbacks = new Set<() => void>();
  const cairn = { stats: { gpuMs: null as number | null } };
  return {
    cairn,
    afterRender(callback: () => void) {
      callbacks.add(callback);
      return () => callbacks.delete(callback);
    },
    frame(gpuMs: number | null) {
      cairn.stats.gpuMs = gpuMs;
      for (const callback of [...callbacks]) callback();
    },
  };
}

describe('BudgetCalibrator', () => {
  const listeners = new Map<string, () => void>();
  beforeEach(() => {
    vi.useFakeTimers();
    vi.stubGlobal('window', {
      addEventListener: (type: string, fn: () => void) => listeners.set(type, fn),
      removeEventListener: (type: string) => listeners.delete(type),
      setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms),
    });
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.unstubAllGlobals();
  });

  it('measures the idle baseline with the avatars hidden, then shows them again', async () => {
    const stage = fakeStage();
    const budget = new GpuBudget();
    const crowd = { object: { visible: true } };
    // Avatars came first: fed with avatars, the budget has no baseline.
    expect(budget.update(9, 200).state).toBe('uncalibrated');
    const calibrator = new BudgetCalibrator(stage as never, { budget, crowd }, { samples: 3 });
    const done = calibrator.calibrate();
    expect(crowd.object.visible).toBe(false);
    for (const ms of [2, 2, 2.1, 2.1, 2.2]) stage.frame(ms); // repeated values count once
    expect(await done).toBe('calibrated');
    expect(crowd.object.visible).toBe(true);
    expect(budget.update(9, 200)).toMatchObject({ state: 'pass', baselineMs: expect.closeTo(2.1, 0.2) });
    expect(budget.update(20, 200).state).toBe('over');
    calibrator.dispose();
  });

  it('calibrates again after a resize, and gives up without timestamp queries', async () => {
    const stage = fakeStage();
    const budget = new GpuBudget();
    const crowd = { object: { visible: true } };
    const calibrator = new BudgetCalibrator(stage as never, { budget, crowd }, { samples: 2, maxFrames: 5, resizeDelayMs: 100 });
    const first = calibrator.calibrate();
    stage.frame(1);
    stage.frame(1.1);
    await first;
    listeners.get('resize')!();
    vi.advanceTimersByTime(150);
    expect(calibrator.state).toBe('measuring');
    expect(crowd.object.visible).toBe(false);
    stage.frame(4);
    stage.frame(4.1);
    expect(calibrator.runs).toBe(2);
    expect(budget.update(4.1, 0).baselineMs).toBeGreaterThan(3);
    const none = calibrator.calibrate();
    for (let i = 0; i < 5; i++) stage.frame(null);
    expect(await none).toBe('unavailable');
    expect(crowd.object.visible).toBe(true);
    calibrator.dispose();
  });
});

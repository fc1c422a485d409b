import { BudgetCalibrator, type CalibrationState } from '../../src/world/budget-calibration.ts';
import type { World, WorldPlugin } from '../../src/world/index.ts';

/**
 * The crowd's GPU budget calibrates itself in the world: once the crowd plugin's StageCrowd exists
 * (at once with `?crowd=N`), its avatars are hidden for a few GPU measurements so the idle baseline
 * excludes their draws, and again after every resize. `cairn.stats.budgetCalibration` says where
 * it stands. Under automation (`navigator.webdriver`) nothing runs by itself — hiding the avatars
 * for a moment would change the draws a test is counting — and `cairn.budgetCalibrator.calibrate()`
 * runs it on demand.
 */
export const plugin: WorldPlugin = { name: 'crowd-budget', provides: ['budgetCalibrator'], needs: ['stageCrowd'], install };

function install(world: World): () => void {
  let calibrator: BudgetCalibrator | null = null;
  let withdraw: (() => void) | null = null;
  let stopStats: (() => void) | null = null;
  let started = false;
  const off = world.services.subscribe('stageCrowd', (target) => {
    if (!target || started) return;
    started = true;
    // subscribe() may call back before it returns `off`.
    queueMicrotask(() => off());
    const automated = navigator.webdriver === true;
    const running = (calibrator = new BudgetCalibrator(world, target, { recalibrateOnResize: !automated }));
    withdraw = world.services.provide('budgetCalibrator', running);
    const stats: { state: CalibrationState; runs: number } = { state: running.state, runs: 0 };
    world.cairn.stats.budgetCalibration = stats;
    stopStats = world.afterRender(() => Object.assign(stats, { state: running.state, runs: running.runs }));
    if (!automated) void running.calibrate();
  });
  return () => {
    off();
    stopStats?.();
    withdraw?.();
    calibrator?.dispose();
  };
}

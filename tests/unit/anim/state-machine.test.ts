import { describe, expect, it } from 'vitest';
import { AnimationStateMachine } from '../../../src/anim/state-machine.ts';
import { MixerAnimationDriver } from '../../../src/anim/mixer-driver.ts';
import { createHumanoid } from '../../../src/rig/humanoid.ts';

describe('AnimationStateMachine', () => {
  it('regression: walk then idle in one tick ends in idle (compare with the last queued, not the playing state)', () => {
    const fsm = new AnimationStateMachine({ initial: 'idle' });
    const transitions: string[] = [];
    fsm.on('transition', (t) => transitions.push(`${t.from}->${t.to}`));
    fsm.request('walk');
    fsm.request('idle');
    fsm.update();
    expect(fsm.current).toBe('idle');
    // Nothing played in between: the same-state request short-circuited when applied.
    expect(transitions).toEqual([]);
  });

  it('applies only the last request of a tick', () => {
    const fsm = new AnimationStateMachine({ initial: 'idle' });
    fsm.request('walk');
    fsm.request('run');
    expect(fsm.update()).toEqual({ from: 'idle', to: 'run', clip: 'run' });
    expect(fsm.update()).toBeNull();
  });

  it('resolves generic states through aliases and refuses states with no clip', () => {
    const fsm = new AnimationStateMachine({
      aliases: { idle: 'Idle_Loop', walk: 'Walk_Fwd' },
      clips: ['Idle_Loop', 'Walk_Fwd', 'jump'],
      initial: 'idle',
    });
    expect(fsm.resolve('walk')).toBe('Walk_Fwd');
    expect(fsm.resolve('jump')).toBe('jump');
    expect(() => fsm.resolve('swim')).toThrow(/"swim" resolves to clip "swim", which this rig does not have/);
    fsm.setAlias('swim', 'Idle_Loop');
    expect(fsm.resolve('swim')).toBe('Idle_Loop');
  });
});

describe('MixerAnimationDriver', () => {
  it('crossfades the mixer to the requested clip and ends in the last request', () => {
    const h = createHumanoid({ detail: 'low' });
    const driver = new MixerAnimationDriver(h.object, h.clips, { initial: 'idle' });
    driver.request('walk');
    driver.request('idle');
    driver.update(1 / 30);
    expect(driver.clip?.name).toBe('idle');
    driver.request('run');
    driver.update(1 / 30);
    expect(driver.clip?.name).toBe('run');
    // Halfway through the fade both actions carry weight; afterwards only run does.
    driver.update(0.1);
    const idle = driver.mixer.existingAction(h.clip('idle'))!;
    expect(idle.getEffectiveWeight()).toBeGreaterThan(0);
    driver.update(0.5);
    expect(driver.mixer.existingAction(h.clip('run'))!.getEffectiveWeight()).toBeCloseTo(1);
    expect(idle.isRunning()).toBe(false);
    driver.dispose();
  });
});

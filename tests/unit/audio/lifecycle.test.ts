import { describe, expect, it } from 'vitest';
import { lifecycleAction, type LifecycleInput } from '../../../src/audio/lifecycle.ts';

const base: LifecycleInput = { started: true, disposed: false, hidden: false, state: 'running', pending: null };

describe('lifecycleAction', () => {
  it('does nothing before the first gesture or after dispose', () => {
    expect(lifecycleAction({ ...base, started: false, state: 'suspended' })).toBe('none');
    expect(lifecycleAction({ ...base, disposed: true, state: 'closed' })).toBe('none');
  });

  it('suspends while hidden and resumes when shown', () => {
    expect(lifecycleAction({ ...base, hidden: true })).toBe('suspend');
    expect(lifecycleAction({ ...base, hidden: true, pending: 'suspend' })).toBe('none');
    expect(lifecycleAction({ ...base, hidden: true, state: 'suspended' })).toBe('none');
    expect(lifecycleAction({ ...base, state: 'suspended' })).toBe('resume');
    expect(lifecycleAction({ ...base, state: 'suspended', pending: 'resume' })).toBe('none');
  });

  it('resumes after a platform interruption and rebuilds a closed context', () => {
    expect(lifecycleAction({ ...base, state: 'interrupted' })).toBe('resume');
    expect(lifecycleAction({ ...base, state: 'closed' })).toBe('rebuild');
    expect(lifecycleAction({ ...base, state: 'closed', hidden: true })).toBe('rebuild');
  });

  it('leaves a running, visible context alone', () => {
    expect(lifecycleAction(base)).toBe('none');
  });
});

import { describe, expect, it } from 'vitest';
import { withDefaults } from '../../../src/core/options.ts';

describe('withDefaults', () => {
  const DEFAULTS = { radius: 4, label: 'grid', items: [] as string[] };

  it('takes each option given and the default for each one left out or undefined', () => {
    expect(withDefaults(DEFAULTS, { radius: 0, label: undefined })).toEqual({ radius: 0, label: 'grid', items: [] });
    expect(withDefaults(DEFAULTS)).toEqual(DEFAULTS);
  });

  it('never changes the defaults object', () => {
    const resolved = withDefaults(DEFAULTS, { label: 'other' });
    resolved.radius = 9;
    expect(DEFAULTS).toEqual({ radius: 4, label: 'grid', items: [] });
  });
});

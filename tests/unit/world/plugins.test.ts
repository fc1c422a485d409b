import { describe, expect, it } from 'vitest';
import { orderPlugins, type WorldPlugin } from '../../../src/world/plugins.ts';

const plugin = (name: string, declared: Partial<Pick<WorldPlugin, 'provides' | 'needs' | 'uses'>> = {}): WorldPlugin => ({
  name,
  ...declared,
  install: () => undefined,
});

describe('orderPlugins', () => {
  it('puts each provider before the plugins that need or use its services, whatever their names', () => {
    const ordered = orderPlugins([
      plugin('anim', { needs: ['avatar'] }),
      plugin('net', { uses: ['crowdRemotes'], provides: ['net'] }),
      plugin('zz-crowd', { provides: ['crowdRemotes', 'stageCrowd'] }),
      plugin('voice', { uses: ['net'] }),
      plugin('avatar', { provides: ['avatar'] }),
    ]).map((p) => p.name);
    expect(ordered.indexOf('zz-crowd')).toBeLessThan(ordered.indexOf('net'));
    expect(ordered.indexOf('net')).toBeLessThan(ordered.indexOf('voice'));
    expect(ordered.indexOf('avatar')).toBeLessThan(ordered.indexOf('anim'));
  });

  it('orders unrelated plugins by name, so every machine installs them alike', () => {
    expect(orderPlugins([plugin('c'), plugin('a'), plugin('b')]).map((p) => p.name)).toEqual(['a', 'b', 'c']);
  });

  it('refuses a cycle and names the plugins in it', () => {
    expect(() =>
      orderPlugins([plugin('a', { needs: ['net'], provides: ['avatar'] }), plugin('b', { needs: ['avatar'], provides: ['net'] })]),
    ).toThrow(/cycle: (a → b → a|b → a → b)/);
  });
});

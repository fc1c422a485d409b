import { describe, expect, it } from 'vitest';
import { parseStartOptions, START_DEFAULTS, wranglerArgs, wranglerEnv } from '../../../scripts/start-options.ts';

describe('npm start options', () => {
  it('defaults to 127.0.0.1:8787 with a build', () => {
    expect(parseStartOptions([], {})).toEqual({ ok: true, options: START_DEFAULTS });
    expect(START_DEFAULTS).toEqual({
      port: 8787,
      ip: '127.0.0.1',
      build: true,
      assets: null,
      persistTo: null,
      vars: [],
      inspectorPort: null,
      logLevel: null,
    });
  });

  it('takes the port from PORT, and --port over PORT', () => {
    expect(parseStartOptions([], { PORT: '9000' })).toEqual({ ok: true, options: { ...START_DEFAULTS, port: 9000 } });
    expect(parseStartOptions(['--port', '9100'], { PORT: '9000' })).toEqual({ ok: true, options: { ...START_DEFAULTS, port: 9100 } });
    expect(parseStartOptions(['--port=9200', '--no-build', '--ip', '0.0.0.0'], {})).toEqual({
      ok: true,
      options: { ...START_DEFAULTS, port: 9200, ip: '0.0.0.0', build: false },
    });
  });

  it('passes storage, assets, variables, the inspector port and the log level on to wrangler', () => {
    const parsed = parseStartOptions(
      ['--assets', '/tmp/a', '--persist-to=/tmp/s', '--var', 'A:1', '--var=B:two', '--inspector-port', '9229', '--log-level', 'warn'],
      {},
    );
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(wranglerArgs(parsed.options)).toEqual([
      '--show-interactive-dev-session=false',
      '--assets',
      '/tmp/a',
      '--persist-to',
      '/tmp/s',
      '--inspector-port',
      '9229',
      '--log-level',
      'warn',
      '--var',
      'A:1',
      '--var',
      'B:two',
    ]);
    expect(wranglerArgs(START_DEFAULTS)).toEqual(['--show-interactive-dev-session=false']);
    expect(parseStartOptions(['--var', 'nocolon'], {})).toMatchObject({ ok: false, problem: expect.stringContaining('NAME:VALUE') });
    expect(parseStartOptions(['--log-level', 'loud'], {})).toMatchObject({ ok: false });
  });

  it('explains a bad port or an unknown option instead of passing it on', () => {
    const bad = [
      parseStartOptions(['--port'], {}),
      parseStartOptions(['--port', 'abc'], {}),
      parseStartOptions([], { PORT: '70000' }),
      parseStartOptions(['--prot', '1'], {}),
    ];
    for (const result of bad) expect(result.ok).toBe(false);
    expect(bad[1]).toMatchObject({ problem: expect.stringContaining('1 to 65535') });
    expect(bad[3]).toMatchObject({ problem: expect.stringContaining('unknown option "--prot"') });
  });

  it('starts wrangler without the cf.json fetch or metrics', () => {
    expect(wranglerEnv({ PATH: '/bin' })).toEqual({ PATH: '/bin', NODE_ENV: 'test', WRANGLER_SEND_METRICS: 'false' });
  });
});

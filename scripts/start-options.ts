/**
 * `npm start`'s options, parsed without side effects so a unit test covers them.
 * The port comes from `--port N` (or `--port=N`), else the `PORT` environment variable, else 8787.
 */
export interface StartOptions {
  /** Port the server listens on. */
  port: number;
  /** Address it binds. Default 127.0.0.1 (this machine only). */
  ip: string;
  /** Build the pages with Vite first. False with `--no-build` (serve dist/ as it is). */
  build: boolean;
  /** Built pages to serve (`--assets DIR`). Default null: dist/, as wrangler.toml says. */
  assets: string | null;
  /** Durable Object storage (`--persist-to DIR`). Default null: wrangler's .wrangler/state. */
  persistTo: string | null;
  /** Worker variables (`--var NAME:VALUE`, repeatable), passed to wrangler as they are. */
  vars: string[];
  /** wrangler's devtools port (`--inspector-port N`). Default null: wrangler's choice. */
  inspectorPort: number | null;
  /** wrangler's log level (`--log-level LEVEL`). Default null: wrangler's (info). */
  logLevel: string | null;
}

/** A parse result: the options, or a message for the person who typed the command. */
export type StartParse = { ok: true; options: StartOptions } | { ok: false; problem: string };

export const START_DEFAULTS: StartOptions = {
  port: 8787,
  ip: '127.0.0.1',
  build: true,
  assets: null,
  persistTo: null,
  vars: [],
  inspectorPort: null,
  logLevel: null,
};

const LOG_LEVELS = ['debug', 'info', 'log', 'warn', 'error', 'none'];

export const START_USAGE = [
  'usage: npm start [-- --port N] [--ip ADDRESS] [--no-build] [--assets DIR] [--persist-to DIR]',
  '                 [--var NAME:VALUE]… [--inspector-port N] [--log-level LEVEL]',
  '       PORT=N npm start',
  'Builds the pages (vite build) and serves the world and its rooms with wrangler dev (workerd),',
  'behind a front that gives the Worker each connection’s real address, and restarts workerd if it crashes.',
].join('\n');

function parsePort(text: string, source: string): number | string {
  const port = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isInteger(port) || port < 1 || port > 65535)
    return `${source} must be a port number from 1 to 65535, got "${text}"`;
  return port;
}

/** Reads the command line (after `--`) and the environment into {@link StartOptions}. */
export function parseStartOptions(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): StartParse {
  const options: StartOptions = { ...START_DEFAULTS, vars: [] };
  if (env.PORT !== undefined && env.PORT !== '') {
    const port = parsePort(env.PORT, 'PORT');
    if (typeof port === 'string') return { ok: false, problem: port };
    options.port = port;
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] =
      arg.startsWith('--') && arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const value = (): string | undefined => inline ?? argv[++i];
    if (flag === '--port' || flag === '-p' || flag === '--inspector-port') {
      const text = value();
      if (text === undefined) return { ok: false, problem: `${flag} needs a number, e.g. npm start -- ${flag} 9000` };
      const port = parsePort(text, flag);
      if (typeof port === 'string') return { ok: false, problem: port };
      if (flag === '--inspector-port') options.inspectorPort = port;
      else options.port = port;
    } else if (flag === '--ip') {
      const text = value();
      if (!text) return { ok: false, problem: '--ip needs an address, e.g. --ip 0.0.0.0' };
      options.ip = text;
    } else if (flag === '--assets' || flag === '--persist-to') {
      const text = value();
      if (!text) return { ok: false, problem: `${flag} needs a folder` };
      if (flag === '--assets') options.assets = text;
      else options.persistTo = text;
    } else if (flag === '--var') {
      const text = value();
      if (!text || !/^[A-Za-z_][A-Za-z0-9_]*:/.test(text))
        return { ok: false, problem: '--var needs NAME:VALUE, e.g. --var WORLD_HALF_EXTENT_M:512' };
      options.vars.push(text);
    } else if (flag === '--log-level') {
      const text = value();
      if (!text || !LOG_LEVELS.includes(text)) return { ok: false, problem: `--log-level must be one of ${LOG_LEVELS.join(', ')}` };
      options.logLevel = text;
    } else if (flag === '--no-build') {
      options.build = false;
    } else if (flag === '--help' || flag === '-h') {
      return { ok: false, problem: START_USAGE };
    } else {
      return { ok: false, problem: `unknown option "${arg}"\n${START_USAGE}` };
    }
  }
  return { ok: true, options };
}

/** The `wrangler dev` arguments for `options`, besides `--ip` and `--port` (the supervisor picks those: wrangler listens on loopback behind the front). */
export function wranglerArgs(options: StartOptions): string[] {
  const args = ['--show-interactive-dev-session=false'];
  if (options.assets !== null) args.push('--assets', options.assets);
  if (options.persistTo !== null) args.push('--persist-to', options.persistTo);
  if (options.inspectorPort !== null) args.push('--inspector-port', String(options.inspectorPort));
  if (options.logLevel !== null) args.push('--log-level', options.logLevel);
  for (const pair of options.vars) args.push('--var', pair);
  return args;
}

/**
 * The environment for `wrangler dev`. Offline, wrangler prints two `getaddrinfo ENOTFOUND` stack
 * traces: miniflare fetches https://workers.cloudflare.com/cf.json (the real `Request.cf` values)
 * unless NODE_ENV is "test", when it uses its placeholder at once — which is all a local server
 * needs. Metrics are off as in wrangler.toml; the update check fails silently on its own.
 */
export function wranglerEnv(env: Readonly<Record<string, string | undefined>>): Record<string, string | undefined> {
  return { ...env, NODE_ENV: 'test', WRANGLER_SEND_METRICS: 'false' };
}

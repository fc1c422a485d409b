/**
 * `npm test`: every check and suite, one after another (software rendering and the type checks
 * each use both cores; run side by side, they took as long in all), stopping at the first that
 * fails: typecheck, lint, format:check, then the unit, server, browser, engines and consumer
 * suites. Each step is an `npm run` script of package.json, so any one can be run alone. Ends
 * with each step's time. Ctrl-C stops the step in progress.
 */
import { spawn, type ChildProcess } from 'node:child_process';

const STEPS = ['typecheck', 'lint', 'format:check', 'test:unit', 'test:server', 'test:browser', 'test:engines', 'test:consumer'];

let running: ChildProcess | null = null;

/** Runs `npm run <script>` in its own process group; resolves with its exit code. */
function run(script: string): Promise<number | null> {
  console.log(`\n[npm test] ${script}`);
  return new Promise((resolve) => {
    running = spawn('npm', ['run', '--silent', script], { stdio: 'inherit', detached: true });
    running.on('close', (code) => {
      running = null;
      resolve(code);
    });
  });
}

function duration(ms: number): string {
  return ms >= 120_000 ? `${(ms / 60_000).toFixed(1)} min` : `${Math.round(ms / 1000)} s`;
}

for (const signal of ['SIGINT', 'SIGTERM'] as const)
  process.on(signal, () => {
    try {
      if (running?.pid) process.kill(-running.pid, signal);
    } catch {
      // already gone
    }
    process.exit(130);
  });

const started = Date.now();
const times: string[] = [];
let failed: string | null = null;
for (const script of STEPS) {
  const stepStarted = Date.now();
  const code = await run(script);
  const line = `  ${script.padEnd(14)} ${duration(Date.now() - stepStarted).padStart(8)}  ${code === 0 ? 'ok' : `exit ${code}`}`;
  times.push(line);
  console.log(`[npm test] ${line.trim()}`);
  if (code !== 0) {
    failed = script;
    break;
  }
}
console.log(`\n[npm test] ${failed ? `FAILED at ${failed}` : 'passed'} in ${duration(Date.now() - started)}:\n${times.join('\n')}`);
process.exit(failed ? 1 : 0);

/**
 * `npm test`: every check and suite, in two lanes where they do not compete for the CPU.
 *
 * - First, side by side: the static checks and the unit suite (typecheck, lint, format:check,
 *   test:unit; CPU-bound, one after another) and the server suite (test:server; it mostly waits on
 *   timers and sockets against workerd). The server suite's output is held back and printed when
 *   it ends, so the two never interleave.
 * - Then one at a time: the browser, engines and consumer suites (software rendering uses both cores).
 *
 * Each step is an `npm run` script of package.json, so any one can be run alone. Stops after the
 * stage in which a step failed; ends with each step's time and exit status. Ctrl-C stops every step.
 */
import { spawn, type ChildProcess } from 'node:child_process';

/** One `npm run` script, with how it went. */
interface Step {
  script: string;
  ms: number;
  code: number | null;
}

const STAGES: string[][][] = [
  [['typecheck', 'lint', 'format:check', 'test:unit'], ['test:server']],
  [['test:browser', 'test:engines', 'test:consumer']],
];

const running = new Set<ChildProcess>();
const steps: Step[] = [];

/** Runs `npm run <script>` in its own process group; `hold` keeps its output until it ends. */
function run(script: string, hold: boolean): Promise<Step> {
  const started = Date.now();
  console.log(`\n[npm test] ${script}${hold ? ' (alongside; its output follows when it ends)' : ''}`);
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], { stdio: hold ? ['ignore', 'pipe', 'pipe'] : 'inherit', detached: true });
    running.add(child);
    const held: Buffer[] = [];
    child.stdout?.on('data', (chunk: Buffer) => held.push(chunk));
    child.stderr?.on('data', (chunk: Buffer) => held.push(chunk));
    child.on('close', (code) => {
      running.delete(child);
      if (hold) {
        console.log(`\n[npm test] ${script}: its output`);
        process.stdout.write(Buffer.concat(held));
      }
      const step = { script, ms: Date.now() - started, code };
      steps.push(step);
      console.log(`[npm test] ${script}: ${code === 0 ? 'passed' : `failed (exit ${code})`} in ${seconds(step.ms)}`);
      resolve(step);
    });
  });
}

/** Runs a lane's scripts one after another, stopping at the first that fails. */
async function lane(scripts: string[], hold: boolean): Promise<boolean> {
  for (const script of scripts) if ((await run(script, hold)).code !== 0) return false;
  return true;
}

function seconds(ms: number): string {
  return ms >= 120_000 ? `${(ms / 60_000).toFixed(1)} min` : `${Math.round(ms / 1000)} s`;
}

function stopAll(signal: NodeJS.Signals): void {
  for (const child of running) {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // already gone
    }
  }
  process.exit(130);
}
process.on('SIGINT', () => stopAll('SIGINT'));
process.on('SIGTERM', () => stopAll('SIGTERM'));

const started = Date.now();
let passed = true;
for (const stage of STAGES) {
  // Only the first lane streams its output; the others are held back until they end.
  const results = await Promise.all(stage.map((scripts, i) => lane(scripts, i > 0)));
  if (results.includes(false)) {
    passed = false;
    break;
  }
}
console.log(`\n[npm test] ${passed ? 'passed' : 'FAILED'} in ${seconds(Date.now() - started)}:`);
for (const step of steps)
  console.log(`  ${step.script.padEnd(14)} ${seconds(step.ms).padStart(8)}  ${step.code === 0 ? 'ok' : `exit ${step.code}`}`);
process.exit(passed ? 0 : 1);

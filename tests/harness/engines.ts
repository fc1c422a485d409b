import { spawn, type ChildProcess } from 'node:child_process';
import puppeteer, { type Browser as PuppeteerBrowser, type ConsoleMessage, type Page as PuppeteerPage } from 'puppeteer-core';
import { Capabilities, Key, Origin, WebDriver } from 'selenium-webdriver';
import { Executor, HttpClient } from 'selenium-webdriver/http';
import { ensureDebianPackage } from './browser.ts';
import { decodePng, type Image } from './png.ts';
import { freePort } from '../../scripts/free-port.ts';
import { forgetGroup, killOnExit } from './server.ts';

/**
 * WebKit and Firefox for the engines suite (tests/engines/), beside Chromium (browser.ts):
 * - WebKitGTK: Debian's MiniBrowser driven by WebKitWebDriver (classic WebDriver) through
 *   selenium-webdriver. It has no headless mode, so it runs in an X server (Xvfb).
 * - Firefox ESR: Debian's firefox-esr driven by puppeteer-core over WebDriver BiDi (Firefox's own
 *   `--remote-debugging-port`; Debian ships no geckodriver). Headful in the same X server: headless
 *   Firefox on Linux creates no GL context at all (no WebGL2), see docs/browsers.md.
 * Both sit behind one small {@link EnginePage} so the smoke tests read the same for every engine.
 */

export const XVFB_PATH = '/usr/bin/Xvfb';
export const WEBKIT_DRIVER_PATH = '/usr/bin/WebKitWebDriver';
export const MINIBROWSER_PATH = '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';
export const FIREFOX_PATH = '/usr/bin/firefox-esr';

export type EngineName = 'webkit' | 'firefox';

/** Makes sure Xvfb, WebKitGTK's driver and MiniBrowser, and Firefox ESR are installed (apt as root). */
export function ensureEngines(): void {
  ensureDebianPackage(XVFB_PATH, 'xvfb');
  ensureDebianPackage(WEBKIT_DRIVER_PATH, 'webkit2gtk-driver');
  // MiniBrowser comes with the engine library the driver depends on.
  ensureDebianPackage(MINIBROWSER_PATH, 'libwebkit2gtk-4.1-0');
  ensureDebianPackage(FIREFOX_PATH, 'firefox-esr');
}

/** A running X server. */
export interface XServer {
  /** e.g. ':3' */
  display: string;
  stop(): Promise<void>;
}

/** Sends SIGTERM to a process group, SIGKILL after `graceMs`; resolves when the leader exited. */
async function stopGroup(child: ChildProcess, graceMs = 3000): Promise<void> {
  const pid = child.pid;
  if (pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((done) => child.once('exit', () => done()));
  try {
    process.kill(-pid, 'SIGTERM');
  } catch {
    return;
  }
  const timer = setTimeout(() => {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }, graceMs);
  await gone;
  clearTimeout(timer);
  // Children that outlived the leader (a browser's helper processes) go with the group.
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // none left
  }
}

/**
 * Starts Xvfb on a display number it picks itself (`-displayfd`: no race with other X servers
 * on the machine), in its own process group, killed by stop() or when this process ends.
 */
export async function startXvfb(): Promise<XServer> {
  ensureDebianPackage(XVFB_PATH, 'xvfb');
  const child = spawn(XVFB_PATH, ['-displayfd', '3', '-screen', '0', '1280x800x24', '-nolisten', 'tcp'], {
    detached: true,
    stdio: ['ignore', 'ignore', 'pipe', 'pipe'],
  });
  if (child.pid !== undefined) killOnExit(child.pid);
  child.once('exit', () => child.pid !== undefined && forgetGroup(child.pid));
  let log = '';
  child.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
  const display = await new Promise<string>((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`Xvfb did not report a display within 20 s:\n${log}`)), 20_000);
    (child.stdio[3] as NodeJS.ReadableStream).on('data', (chunk: Buffer) => {
      text += chunk.toString();
      const match = /^(\d+)\n/.exec(text);
      if (match) {
        clearTimeout(timer);
        resolve(`:${match[1]}`);
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`Xvfb exited (${code}) before it was ready:\n${log}`));
    });
  });
  return { display, stop: () => stopGroup(child) };
}

/** One page (tab) of a WebKit or Firefox browser, the same few verbs for both. */
export interface EnginePage {
  readonly engine: EngineName;
  /** What the browser calls itself, e.g. "WebKitGTK 2.50.6", "Firefox 153.8.0". */
  readonly version: string;
  /** Navigates and waits for the load event; errors are collected from here on. */
  goto(url: string): Promise<void>;
  /** Runs `fn` in the page with JSON arguments; a returned promise is awaited. */
  evaluate<R, A extends unknown[]>(fn: (...args: A) => R | Promise<R>, ...args: A): Promise<Awaited<R>>;
  /** Polls `fn` until it returns true (every 250 ms); throws after `timeoutMs` with `what`. */
  waitFor<A extends unknown[]>(what: string, timeoutMs: number, fn: (...args: A) => boolean, ...args: A): Promise<void>;
  /** The viewport as a picture. */
  screenshot(): Promise<Image>;
  /** A left click at CSS pixels (x, y) of the viewport. */
  click(x: number, y: number): Promise<void>;
  /** Clicks the element a CSS selector finds, as a person would (scrolled into view, centred). */
  clickElement(selector: string): Promise<void>;
  /** A left-button drag through the given CSS-pixel points. */
  drag(points: Array<[number, number]>): Promise<void>;
  /** Holds and releases a key by its `KeyboardEvent.code` (KeyW, KeyD…). */
  keyDown(code: string): Promise<void>;
  keyUp(code: string): Promise<void>;
  /** Replaces a text or number field's value by typing, then leaves it (Tab), as a person does. */
  fill(selector: string, text: string): Promise<void>;
  /** Console errors, uncaught exceptions and unhandled rejections since the last goto. */
  errors(): Promise<string[]>;
  close(): Promise<void>;
}

/**
 * One line on stderr per slow step (a load, a wait, a picture) with its seconds, so a run's log
 * shows where an engine spends its time: `[engines webkit] 12.3 s waiting for …`.
 */
export function trace(engine: EngineName, what: string, startedAt: number): void {
  process.stderr.write(`[engines ${engine}] ${((performance.now() - startedAt) / 1000).toFixed(1)} s ${what}\n`);
}

/** The same page, with its loads, waits and pictures traced (see {@link trace}). */
function traced(page: EnginePage): EnginePage {
  return {
    ...page,
    async goto(url) {
      const t = performance.now();
      await page.goto(url);
      trace(page.engine, `loading ${new URL(url).pathname}${new URL(url).search}`, t);
    },
    async waitFor(what, timeoutMs, fn, ...args) {
      const t = performance.now();
      try {
        await page.waitFor(what, timeoutMs, fn, ...args);
      } catch (error) {
        trace(page.engine, `waiting in vain for ${what}`, t);
        throw error;
      }
      trace(page.engine, `waiting for ${what}`, t);
    },
    // Input waits on the page's event loop, which a slow frame holds: each step says how long.
    async click(x, y) {
      const t = performance.now();
      await page.click(x, y);
      trace(page.engine, `clicking at ${Math.round(x)},${Math.round(y)}`, t);
    },
    async keyDown(code) {
      const t = performance.now();
      await page.keyDown(code);
      trace(page.engine, `pressing ${code}`, t);
    },
    async keyUp(code) {
      const t = performance.now();
      await page.keyUp(code);
      trace(page.engine, `releasing ${code}`, t);
    },
    async screenshot() {
      const t = performance.now();
      const image = await page.screenshot();
      trace(page.engine, 'taking a screenshot', t);
      return image;
    },
  };
}

/** `KeyboardEvent.code` of a letter key → the character WebDriver types for it. */
function keyOfCode(code: string): string {
  const letter = /^Key([A-Z])$/.exec(code);
  if (letter) return letter[1]!.toLowerCase();
  const named: Record<string, string> = { Space: ' ', Tab: Key.TAB, Enter: Key.ENTER, ShiftLeft: Key.SHIFT, AltLeft: Key.ALT };
  const key = named[code];
  if (!key) throw new Error(`keyOfCode: no WebDriver key for ${code}`);
  return key;
}

/**
 * Collects console errors and uncaught errors into `window.__engineErrors`. WebKitGTK's classic
 * WebDriver has no log API (its BiDi is not built in Debian's 2.50, and MiniBrowser's
 * console-to-stdout setting does not reach the automation view), so the collector is installed
 * right after the load event: the pages create their renderer, compile shaders and draw after it.
 */
function installErrorCollector(): void {
  const w = window as unknown as { __engineErrors?: string[] };
  if (w.__engineErrors) return;
  const errors: string[] = (w.__engineErrors = []);
  const original = console.error.bind(console);
  console.error = (...args: unknown[]) => {
    errors.push(`console.error: ${args.map((a) => (a instanceof Error ? a.message : String(a))).join(' ')}`);
    original(...args);
  };
  window.addEventListener('error', (event) => errors.push(`pageerror: ${event.message}`));
  window.addEventListener('unhandledrejection', (event) =>
    errors.push(`unhandledrejection: ${(event.reason as Error | undefined)?.message ?? String(event.reason)}`),
  );
}

export interface LaunchWebKitOptions {
  display: string;
  viewport: { width: number; height: number };
  /** MiniBrowser feature switches, e.g. ['+WebGPU'] (`MiniBrowser --features=help` lists them). */
  features?: string[];
}

/**
 * Starts WebKitWebDriver (own process group, free port) and a MiniBrowser session in the given
 * X display, sized so the page's viewport is `viewport`.
 */
export async function launchWebKit(options: LaunchWebKitOptions): Promise<EnginePage> {
  ensureDebianPackage(WEBKIT_DRIVER_PATH, 'webkit2gtk-driver');
  const port = await freePort();
  const driverProcess = spawn(WEBKIT_DRIVER_PATH, [`--port=${port}`, '--host=127.0.0.1'], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    // Skia paints the page on the CPU: with no GPU, its GL path shares llvmpipe with WebGL, and at
    // 480×300 the web process waited inside llvmpipe for good (seen twice; fine with this set).
    env: { ...process.env, DISPLAY: options.display, WEBKIT_SKIA_ENABLE_CPU_RENDERING: '1' },
  });
  if (driverProcess.pid !== undefined) killOnExit(driverProcess.pid);
  driverProcess.once('exit', () => driverProcess.pid !== undefined && forgetGroup(driverProcess.pid));
  // Drained so a chatty browser (GStreamer, ALSA without a sound card) never blocks on a full pipe.
  driverProcess.stdout?.resume();
  driverProcess.stderr?.resume();
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 20_000;
  for (;;) {
    try {
      if ((await fetch(`${url}/status`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stopGroup(driverProcess);
      throw new Error('WebKitWebDriver did not answer /status within 20 s');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const args = ['--automation', ...(options.features?.length ? [`--features=${options.features.join(',')}`] : [])];
  let driver: WebDriver;
  try {
    driver = await WebDriver.createSession(
      new Executor(new HttpClient(url)),
      new Capabilities({ 'webkitgtk:browserOptions': { binary: MINIBROWSER_PATH, args } }),
    );
  } catch (error) {
    await stopGroup(driverProcess);
    throw error;
  }
  const capabilities = await driver.getCapabilities();
  const version = `WebKitGTK ${String(capabilities.get('browserVersion'))}`;
  // A frame of the world takes seconds in software GL: scripts that wait for frames need room.
  await driver.manage().setTimeouts({ script: 180_000, pageLoad: 120_000 });
  // The window rect includes MiniBrowser's toolbar: size once, measure the page, correct.
  await driver.manage().window().setRect({ width: options.viewport.width, height: options.viewport.height });
  const inner = (await driver.executeScript('return [innerWidth, innerHeight]')) as [number, number];
  await driver
    .manage()
    .window()
    .setRect({
      width: options.viewport.width * 2 - inner[0],
      height: options.viewport.height * 2 - inner[1],
    });

  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any function: it is sent as source text.
  const run = async <R>(fn: (...args: any[]) => R, args: unknown[]): Promise<Awaited<R>> => {
    // A test that timed out keeps running; once its session is closed, its next command ends it.
    if (closed) throw new Error('webkit: this session is closed');
    return (await driver.executeScript(`return (${fn.toString()}).apply(null, arguments);`, ...args)) as Awaited<R>;
  };
  let closed = false;
  const page: EnginePage = {
    engine: 'webkit',
    version,
    async goto(target) {
      await driver.get(target);
      await run(installErrorCollector, []);
    },
    evaluate: (fn, ...args) => run(fn, args),
    async waitFor(what, timeoutMs, fn, ...args) {
      const end = Date.now() + timeoutMs;
      while (!(await run(fn, args))) {
        if (Date.now() > end) throw new Error(`webkit: timed out after ${timeoutMs} ms waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    },
    async screenshot() {
      return decodePng(Buffer.from(await driver.takeScreenshot(), 'base64'));
    },
    async click(x, y) {
      await driver
        .actions()
        .move({ x: Math.round(x), y: Math.round(y), origin: Origin.VIEWPORT })
        .press()
        .release()
        .perform();
    },
    async clickElement(selector) {
      await (await driver.findElement({ css: selector })).click();
    },
    async drag(points) {
      let actions = driver
        .actions()
        .move({ x: Math.round(points[0]![0]), y: Math.round(points[0]![1]), origin: Origin.VIEWPORT })
        .press();
      for (const [x, y] of points.slice(1)) actions = actions.move({ x: Math.round(x), y: Math.round(y), origin: Origin.VIEWPORT });
      await actions.release().perform();
    },
    async keyDown(code) {
      await driver.actions().keyDown(keyOfCode(code)).perform();
    },
    async keyUp(code) {
      await driver.actions().keyUp(keyOfCode(code)).perform();
    },
    async fill(selector, text) {
      const element = await driver.findElement({ css: selector });
      await element.clear();
      await element.sendKeys(text, Key.TAB);
    },
    async errors() {
      return run(() => [...((window as unknown as { __engineErrors?: string[] }).__engineErrors ?? [])], []);
    },
    async close() {
      if (closed) return;
      closed = true;
      // The web process may be inside a frame that takes a minute: quitting waits on it, so it
      // gets a few seconds, then the driver's group (MiniBrowser with it) is killed.
      await Promise.race([driver.quit().catch(() => undefined), new Promise((r) => setTimeout(r, 5000))]);
      await stopGroup(driverProcess);
    },
  };
  return traced(page);
}

export interface LaunchFirefoxOptions {
  display: string;
  viewport: { width: number; height: number };
  /** about:config preferences for this run's fresh profile. */
  prefs?: Record<string, string | number | boolean>;
}

/**
 * Preferences that give Firefox ESR WebGPU on Linux: the API is off by default there
 * (`dom.webgpu.enabled`), and with it on the adapter request is refused "by blocklist" until
 * `gfx.webgpu.ignore-blocklist`. wgpu then runs on Mesa's lavapipe (software Vulkan).
 */
export const FIREFOX_WEBGPU_PREFS = { 'dom.webgpu.enabled': true, 'gfx.webgpu.ignore-blocklist': true } as const;

/** Fake microphone (a tone), no permission prompt, sound allowed without a gesture: for voice. */
export const FIREFOX_MEDIA_PREFS = {
  'media.navigator.streams.fake': true,
  'media.navigator.permission.disabled': true,
  'media.autoplay.default': 0,
  'media.autoplay.blocking_policy': 0,
  'media.autoplay.block-webaudio': false,
} as const;

/** Launches Debian's Firefox ESR (fresh profile) in the given X display and opens one page. */
export async function launchFirefox(options: LaunchFirefoxOptions): Promise<EnginePage> {
  ensureDebianPackage(FIREFOX_PATH, 'firefox-esr');
  const browser: PuppeteerBrowser = await puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX_PATH,
    headless: false,
    env: { ...process.env, DISPLAY: options.display },
    extraPrefsFirefox: options.prefs ?? {},
    defaultViewport: options.viewport,
    protocolTimeout: 180_000,
  });
  const version = (await browser.version()).replace(/^firefox\//, 'Firefox ');
  const tab: PuppeteerPage = await browser.newPage();
  tab.setDefaultTimeout(120_000);
  let errors: string[] = [];
  tab.on('console', (message: ConsoleMessage) => {
    if (message.type() === 'error') errors.push(`console.error: ${message.text()}`);
  });
  tab.on('pageerror', (error: unknown) => errors.push(`pageerror: ${(error as Error).message ?? String(error)}`));
  let closed = false;
  const page: EnginePage = {
    engine: 'firefox',
    version,
    async goto(target) {
      errors = [];
      await tab.goto(target, { waitUntil: 'load' });
    },
    evaluate: (fn, ...args) => tab.evaluate(fn as never, ...(args as unknown as never[])) as never,
    async waitFor(what, timeoutMs, fn, ...args) {
      const end = Date.now() + timeoutMs;
      while (!(await tab.evaluate(fn as never, ...(args as unknown as never[])))) {
        if (Date.now() > end) throw new Error(`firefox: timed out after ${timeoutMs} ms waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    },
    async screenshot() {
      return decodePng(Buffer.from(await tab.screenshot({ type: 'png' })));
    },
    async click(x, y) {
      await tab.mouse.click(x, y);
    },
    async clickElement(selector) {
      await tab.click(selector);
    },
    async drag(points) {
      await tab.mouse.move(points[0]![0], points[0]![1]);
      await tab.mouse.down();
      for (const [x, y] of points.slice(1)) await tab.mouse.move(x, y);
      await tab.mouse.up();
    },
    async keyDown(code) {
      await tab.keyboard.down(code as never);
    },
    async keyUp(code) {
      await tab.keyboard.up(code as never);
    },
    async fill(selector, text) {
      await tab.click(selector, { count: 3 });
      await tab.keyboard.type(text);
      await tab.keyboard.press('Tab');
    },
    async errors() {
      return [...errors];
    },
    async close() {
      if (closed) return;
      closed = true;
      await browser.close().catch(() => undefined);
    },
  };
  return traced(page);
}

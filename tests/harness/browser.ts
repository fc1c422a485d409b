import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type LaunchOptions, type Page } from 'playwright-core';
import type { CairnStats } from '../../src/world/cairn-global.ts';

export const CHROMIUM_PATH = '/usr/bin/chromium';

/** Flags that give headless Chromium WebGPU through SwiftShader (see DEVELOPERS.md). */
export const WEBGPU_ARGS = [
  '--no-sandbox',
  '--enable-unsafe-webgpu',
  '--enable-features=Vulkan',
  '--use-vulkan=swiftshader',
  '--use-webgpu-adapter=swiftshader',
  '--use-angle=swiftshader',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Flags for real WebRTC and audio between headless pages (fake capture devices, no prompts). */
export const MEDIA_ARGS = [
  '--use-fake-device-for-media-stream',
  '--use-fake-ui-for-media-stream',
  '--autoplay-policy=no-user-gesture-required',
  '--disable-features=WebRtcHideLocalIpsWithMdns',
];

/**
 * Makes sure a Debian package's binary is installed: installs the package with apt-get when
 * running as root, otherwise throws a message saying what to run. Test setups call this for
 * chromium, espeak-ng and the like, so a clean machine needs no manual step.
 */
export function ensureDebianPackage(binary: string, debianPackage: string): void {
  if (existsSync(binary)) return;
  if (process.getuid?.() === 0) {
    console.log(`[cairn] ${binary} is missing; installing ${debianPackage} with apt-get (one time)…`);
    const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
    execFileSync('apt-get', ['update'], { stdio: 'inherit', env });
    execFileSync('apt-get', ['install', '-y', debianPackage], { stdio: 'inherit', env });
    if (existsSync(binary)) return;
  }
  throw new Error(`${binary} not found. Install it with: sudo apt-get install -y ${debianPackage}`);
}

/** Makes sure Debian's Chromium is installed (see {@link ensureDebianPackage}). */
export function ensureChromium(): void {
  ensureDebianPackage(CHROMIUM_PATH, 'chromium');
}

export interface LaunchChromiumOptions {
  /** Extra command-line flags (e.g. MEDIA_ARGS, --use-file-for-fake-audio-capture=…). */
  args?: string[];
  /** Replace the WebGPU flags entirely (to test a browser without WebGPU). */
  baseArgs?: string[];
  launch?: LaunchOptions;
}

/** Launches Debian's headless Chromium with WebGPU on SwiftShader. */
export async function launchChromium(options: LaunchChromiumOptions = {}): Promise<Browser> {
  ensureChromium();
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [...(options.baseArgs ?? WEBGPU_ARGS), ...(options.args ?? [])],
    ...options.launch,
  });
}

/**
 * Opens a page with a generous default timeout for every action (screenshots included): SwiftShader
 * on a loaded two-core machine can take tens of seconds per frame, past playwright's 30 s default.
 */
export async function openPage(browser: Browser, viewport: { width: number; height: number }): Promise<Page> {
  const page = await browser.newPage({ viewport });
  page.setDefaultTimeout(120_000);
  return page;
}

/** Collects console errors and page errors so a test can assert on them or print them. */
export function collectPageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(`console.error: ${message.text()}`);
  });
  return errors;
}

/**
 * Waits until `window.cairn.ready` is true (pages set it after their first rendered frame) or a
 * fatal error is published, and returns a JSON copy of the page's stats (`cairn.stats`).
 */
export async function waitForCairn(page: Page, timeoutMs = 60_000): Promise<CairnStats> {
  await page.waitForFunction(
    () => {
      const cairn = window.cairn;
      return cairn?.ready === true || typeof cairn?.fatal === 'string';
    },
    undefined,
    { timeout: timeoutMs, polling: 100 },
  );
  const fatal = await page.evaluate(() => window.cairn.fatal);
  if (fatal) throw new Error(`page reported a fatal error: ${fatal}`);
  return page.evaluate(() => JSON.parse(JSON.stringify(window.cairn.stats)) as CairnStats);
}

/**
 * The HUD's text as a person would read it now: redraws the HUD from `cairn.stats` first, so a test
 * that has just waited for a figure does not race the HUD's 250 ms redraw.
 */
export async function hudText(page: Page): Promise<string> {
  await page.evaluate(() => window.cairn.hud?.refresh());
  return page.locator('.cairn-hud').innerText();
}

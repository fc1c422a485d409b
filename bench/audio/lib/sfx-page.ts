import { rmSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { launchChromium, MEDIA_ARGS } from '../../../tests/harness/browser.ts';
import { buildPages } from '../../../tests/harness/build.ts';
import { startServer } from '../../../tests/harness/server.ts';

/**
 * Builds the pages, serves them from the real Worker, opens the sound page in Debian's Chromium,
 * makes the gesture that starts sound, runs `body`, and tears everything down. Web Audio numbers
 * only exist in a browser, so the audio benchmarks measure there.
 */
export async function withSfxPage<T>(body: (page: Page) => Promise<T>): Promise<T> {
  process.stdout.write('building pages and starting the server… ');
  const assets = buildPages();
  const server = await startServer({ assetsDir: assets });
  const browser = await launchChromium({ args: MEDIA_ARGS });
  console.log('ready');
  try {
    const page = await browser.newPage({ viewport: { width: 800, height: 600 } });
    // tsx keeps function names with a `__name` helper the page does not have (given as text: a
    // function here would itself be compiled to use it).
    await page.addInitScript({ content: 'window.__name = (f) => f;' });
    await page.goto(`${server.url}/sfx.html?seed=1234`);
    await page.waitForFunction(() => window.cairn?.ready === true);
    await page.mouse.click(400, 30);
    await page.waitForFunction(() => (window.cairn.stats.audio as { state: string }).state === 'running');
    return await body(page);
  } finally {
    await browser.close();
    await server.stop();
    rmSync(assets, { recursive: true, force: true });
  }
}

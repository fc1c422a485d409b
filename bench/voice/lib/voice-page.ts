import { rmSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { launchChromium } from '../../../tests/harness/browser.ts';
import { buildPages } from '../../../tests/harness/build.ts';
import { startServer } from '../../../tests/harness/server.ts';

/**
 * Builds the pages, serves them from the real Worker, opens voice.html without joining (it carries
 * the voice module as `cairn.voiceModule` and loads the RNNoise worklet from its built URL), runs
 * `body`, and tears everything down. `VOICE_PAGE_LOG=1` prints the page's console.
 */
export async function withVoicePage<T>(body: (page: Page) => Promise<T>): Promise<T> {
  process.stdout.write('building pages and starting the server… ');
  const assets = buildPages();
  const server = await startServer({ assetsDir: assets });
  const browser = await launchChromium({ args: ['--autoplay-policy=no-user-gesture-required'] });
  console.log('ready');
  try {
    const page = await browser.newPage({ viewport: { width: 320, height: 240 } });
    page.on('crash', () => console.error('the voice page crashed'));
    if (process.env.VOICE_PAGE_LOG) page.on('console', (m) => console.log('page:', m.text()));
    page.on('pageerror', (error) => console.error(`page error: ${error.message}`));
    // tsx keeps function names with a `__name` helper the page does not have.
    await page.addInitScript({ content: 'window.__name = (f) => f;' });
    await page.goto(`${server.url}/voice.html?join=0`);
    await page.waitForFunction(() => window.cairn?.ready === true && !!window.cairn.voiceModule);
    return await body(page);
  } finally {
    await browser.close();
    await server.stop();
    rmSync(assets, { recursive: true, force: true });
  }
}

/**
 * Every ```ts block of README.md, DEVELOPERS.md and docs/*.md runs in headless Chromium: one blank page
 * (app/docs-examples.html, served by the Worker), each block imported in turn as an ES module with
 * `cairn/<module>` resolved to src/<module>/index.ts. A block passes when it finishes without
 * throwing within its time; a failure names the file and line of the block.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ROOT } from '../harness/server.ts';
import { allExamples } from '../docs/extract.ts';
import { launchChromium } from '../harness/browser.ts';

const base = inject('serverUrl');
/** Per block: creating a renderer or a world on SwiftShader on a loaded two-core machine is slow. */
const BLOCK_TIMEOUT_MS = 90_000;

describe("the docs' code examples", () => {
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 320, height: 200 } });
    page.setDefaultTimeout(BLOCK_TIMEOUT_MS + 30_000);
    page.on('pageerror', (error) => pageErrors.push(error.message));
    await page.goto(`${base}/docs-examples.html`);
    await page.waitForFunction(() => window.docsExamples !== undefined, undefined, { timeout: 60_000 });
  });
  afterAll(async () => browser?.close());

  it('runs every ```ts block of README.md, DEVELOPERS.md and docs/*.md without an error', async () => {
    const expected = allExamples(ROOT).map(({ file, line }) => ({ file, line }));
    // The page was built from the same files: the same blocks, in the same order.
    expect(await page.evaluate(() => window.docsExamples.list)).toEqual(expected);
    expect(expected.length).toBeGreaterThan(0);
    const failures: string[] = [];
    for (let i = 0; i < expected.length; i++) {
      const result = await page.evaluate(([index, timeout]) => window.docsExamples.run(index!, timeout), [i, BLOCK_TIMEOUT_MS]);
      if (!result.ok) failures.push(`${result.file}:${result.line}: ${result.error}`);
    }
    expect(failures, failures.join('\n')).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});

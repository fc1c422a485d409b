import { launchChromium, MEDIA_ARGS } from '../tests/harness/browser.ts';
const browser = await launchChromium({ args: MEDIA_ARGS });
const page = await browser.newPage();
await page.goto('http://127.0.0.1:5199/sfx.html');
await page.waitForFunction(() => (window as any).cairn?.ready === true, null, { timeout: 120_000 });
const r = await page.evaluate(`(async () => {
  const A = window.cairn.sfx.audio;
  let render = 0, measure = 0, n = 0;
  for (const c of A.LOUDNESS_CASES) {
    if (c.kind !== 'recipe') continue;
    const t0 = performance.now();
    const b = await A.renderRecipe(c.recipe, c.params, { mix: {} });
    const t1 = performance.now();
    A.measureLoudness(A.channelsOf(b), b.sampleRate);
    measure += performance.now() - t1; render += t1 - t0; n++;
  }
  const t2 = performance.now();
  await Promise.all(A.LOUDNESS_CASES.filter((c) => c.kind === 'recipe').map((c) => A.renderRecipe(c.recipe, c.params, { mix: {} })));
  const par = performance.now() - t2;
  let scenes = 0; const t3 = performance.now();
  for (const c of A.LOUDNESS_CASES) if (c.kind === 'scene') await A.measureLoudnessCase(c);
  scenes = performance.now() - t3;
  return { n, render, measure, par, scenes };
})()`);
console.log(JSON.stringify(r));
await browser.close();

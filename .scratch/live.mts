import { launchChromium, MEDIA_ARGS } from '../tests/harness/browser.ts';
const browser = await launchChromium({ args: MEDIA_ARGS });
const page = await browser.newPage();
page.setDefaultTimeout(300_000);
page.on('console', (m) => console.log('page:', m.text()));
page.on('pageerror', (e) => console.log('pageerror:', e.message));
await page.goto('http://127.0.0.1:5199/sfx.html?seed=1234');
await page.waitForFunction(() => (window as any).cairn?.ready === true, null, { timeout: 120_000 });
const q = await page.evaluate(() => { const c = (window as any).cairn; c.audio.play('ui-click'); return c.stats.audio.queued; });
console.log('queued before gesture', q);
await page.mouse.click(400, 30);
await page.waitForFunction(() => (window as any).cairn.stats.audio.state === 'running');
await page.waitForTimeout(1500);
console.log(await page.evaluate(() => JSON.stringify({ q: (window as any).cairn.stats.audio.queued, click: (window as any).cairn.stats.audio.byRecipe, l: (window as any).cairn.stats.audio.loudness })));
for (const preRoll of [undefined, 0]) {
const r = await page.evaluate(`(async (preRoll) => {
  const { cairn } = window;
  const engine = cairn.audio; const A = cairn.sfx.audio; const ctx = engine.context;
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  engine.setMusic(false); engine.setAmbience({ wind: 0 });
  await sleep(2500);
  engine.setSeed(1234); engine.resetMeters();
  await sleep(200);
  const at = ctx.currentTime + 0.1;
  engine.play('strike', { intensity: 1 }, { at });
  while (ctx.currentTime < at + 1.2) await sleep(50);
  await sleep(100);
  const s = engine.stats;
  const live = { peakDb: A.toDb(s.maxPeak), tp: s.loudness.truePeakMaxDb, S: s.loudness.shortTermMax, M: s.loudness.momentaryMax, src: s.loudness.source };
  const buffer = await A.renderRecipe('strike', { intensity: 1 }, { mix: {}, sampleRate: ctx.sampleRate, preRoll });
  const m = A.measureLoudness(A.channelsOf(buffer), buffer.sampleRate);
  const offline = { peakDb: A.toDb(m.samplePeak), tp: A.toDb(m.truePeak), S: m.shortTermMax, M: m.momentaryMax };
  return { live, offline, sr: ctx.sampleRate };
})(${preRoll === undefined ? 'undefined' : preRoll})`);
console.log(preRoll, JSON.stringify(r));
}
await browser.close();

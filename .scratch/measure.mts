import { launchChromium, MEDIA_ARGS } from '../tests/harness/browser.ts';
const url = process.argv[2] ?? 'http://127.0.0.1:5199/sfx.html?seed=1234';
const browser = await launchChromium({ args: MEDIA_ARGS });
const page = await browser.newPage();
page.setDefaultTimeout(300_000);
page.on('console', (m) => console.log('page:', m.text()));
page.on('pageerror', (e) => console.log('pageerror:', e.message));
await page.goto(url);
await page.waitForFunction(() => (window as any).cairn?.ready === true, null, { timeout: 120_000 });
const t0 = Date.now();
const results = await page.evaluate(async () => {
  const A = (window as any).cairn.sfx.audio;
  return A.measureLoudnessCases(A.LOUDNESS_CASES);
});
console.log(`measured ${results.length} cases in ${Date.now() - t0} ms`);
for (const r of results) console.log(`${r.ok ? "ok " : "BAD"} ${r.nominal ? "N" : " "} ${r.soundClass.padEnd(9)} ${r.id.padEnd(24)} ${r.lufs.toFixed(1).padStart(6)} LUFS  ${r.truePeakDb.toFixed(1).padStart(6)} dBTP  S-max ${r.shortTermMax.toFixed(1)}`);
await browser.close();

import { readFileSync } from 'node:fs';
import { launchChromium, MEDIA_ARGS } from '../tests/harness/browser.ts';
const md = readFileSync('docs/audio.md', 'utf8');
const blocks = [...md.matchAll(/```ts\n([\s\S]*?)```/g)].map((m) => m[1]!);
const browser = await launchChromium({ args: MEDIA_ARGS });
const page = await browser.newPage();
page.on('console', (m) => console.log('page:', m.text()));
page.on('pageerror', (e) => console.log('pageerror:', e.message));
await page.goto('http://127.0.0.1:5199/sfx.html');
await page.waitForFunction(() => (window as any).cairn?.ready === true, null, { timeout: 120_000 });
for (const code of blocks) {
  const src = code.replace(/from 'cairn\/audio'/g, "from '/@fs/work/wt/audio/src/audio/index.ts'");
  const ok = await page.evaluate(async (src) => {
    const s = document.createElement('script');
    s.type = 'module';
    (window as any).__done = null;
    s.textContent = `${src}\nwindow.__done = 'ok';`;
    window.addEventListener('error', (e) => ((window as any).__done = 'error: ' + e.message), { once: true });
    document.head.append(s);
    for (let i = 0; i < 200 && !(window as any).__done; i++) await new Promise((r) => setTimeout(r, 100));
    return (window as any).__done;
  }, src);
  console.log('block:', ok);
}
await browser.close();

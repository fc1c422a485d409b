/**
 * Runs the Poly Haven fixture by hand: `npx tsx bin/polyhaven-fixture.ts [port]`, then open
 * `/assets.html?api=<printed URL>` on a running Cairn (npm start). Ctrl-C stops it.
 */
import { startPolyHavenFixture } from '../tests/harness/polyhaven-fixture.ts';

const port = process.argv[2] ? Number(process.argv[2]) : 0;
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`usage: npx tsx bin/polyhaven-fixture.ts [port]   (got ${JSON.stringify(process.argv[2])})`);
  process.exit(2);
}
const fixture = await startPolyHavenFixture({ port });
console.log(`Poly Haven fixture on ${fixture.url}`);
console.log(`  catalog:  ${fixture.url}/assets?t=models`);
console.log(`  files:    ${fixture.url}/files/wooden_crate_01`);
console.log(`  page:     http://127.0.0.1:8787/assets.html?api=${encodeURIComponent(fixture.url)}`);
const stop = (): void => {
  void fixture.close().then(() => process.exit(0));
};
process.on('SIGINT', stop);
process.on('SIGTERM', stop);

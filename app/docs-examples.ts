import { examples } from 'virtual:cairn-docs-examples';

/**
 * A blank page that runs the ```ts examples of README.md, DEVELOPERS.md and docs/*.md (tests/docs/vite-plugin.ts
 * builds them, `cairn/<module>` resolved to src/<module>/index.ts). `window.docsExamples.run(i)`
 * imports example i (its top-level code runs, top-level await included) and resolves with
 * whether it finished without throwing within `timeoutMs`. tests/browser/docs-examples.test.ts
 * drives it; opened by hand, it runs them all and lists the results.
 */
export interface DocsExampleResult {
  file: string;
  line: number;
  ok: boolean;
  error?: string;
  ms: number;
}

async function run(index: number, timeoutMs = 60_000): Promise<DocsExampleResult> {
  const example = examples[index];
  if (!example) throw new RangeError(`no example ${index} (there are ${examples.length})`);
  const start = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`did not finish within ${timeoutMs / 1000} s`)), timeoutMs);
  });
  try {
    await Promise.race([example.load(), timeout]);
    return { file: example.file, line: example.line, ok: true, ms: performance.now() - start };
  } catch (error) {
    const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    return { file: example.file, line: example.line, ok: false, error: message, ms: performance.now() - start };
  } finally {
    clearTimeout(timer);
  }
}

declare global {
  interface Window {
    docsExamples: { count: number; list: Array<{ file: string; line: number }>; run: typeof run };
  }
}

window.docsExamples = { count: examples.length, list: examples.map(({ file, line }) => ({ file, line })), run };

if (new URLSearchParams(location.search).has('all')) {
  const list = document.createElement('pre');
  document.body.append(list);
  for (let i = 0; i < examples.length; i++) {
    const result = await run(i);
    list.textContent += `${result.ok ? 'ok  ' : 'FAIL'} ${result.file}:${result.line}${result.error ? ` ${result.error}` : ''}\n`;
  }
}

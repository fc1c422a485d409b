import { describe, expect, it } from 'vitest';
import { jsSpecifier, moduleRelativeUrls } from '../../../scripts/build-lib.ts';

describe('the library build (scripts/build-lib.ts)', () => {
  it('turns relative .ts specifiers into .js and leaves the rest alone', () => {
    expect(jsSpecifier('./a.ts')).toBe('./a.js');
    expect(jsSpecifier('../world/services.ts')).toBe('../world/services.js');
    expect(jsSpecifier('./types.d.ts')).toBe('./types.d.ts');
    expect(jsSpecifier('./beach.json')).toBe('./beach.json');
    expect(jsSpecifier('three')).toBe('three');
    expect(jsSpecifier('three/addons/loaders/GLTFLoader.js')).toBe('three/addons/loaders/GLTFLoader.js');
    expect(jsSpecifier('some-package/file.ts')).toBe('some-package/file.ts');
  });

  it('finds the files a module loads by URL beside itself', () => {
    const code = [
      `this.worker = new Worker(new URL("./scatter-worker.js", import.meta.url), { type: 'module' });`,
      `return new URL('./meter/meter-worklet.js', import.meta.url);`,
      `const page = new URL(url, location.href);`,
      `const other = new URL('./x.js', base);`,
    ].join('\n');
    expect(moduleRelativeUrls(code)).toEqual(['./scatter-worker.js', './meter/meter-worklet.js']);
  });
});

import { LoaderUtils } from 'three';
import { describe, expect, it } from 'vitest';
import { createIncludeUrlModifier, normalizeRelativePath } from '../../../src/assets/include-map.ts';

const GLTF = 'https://dl.polyhaven.org/file/ph-assets/Models/gltf/1k/barrel_01/barrel_01_1k.gltf';
const include = {
  'textures/barrel_01_diff_1k.jpg': 'https://dl.polyhaven.org/file/ph-assets/Models/jpg/1k/barrel_01/barrel_01_diff_1k.jpg',
  'textures/barrel 01 nor_gl_1k.jpg': 'https://dl.polyhaven.org/file/ph-assets/Models/jpg/1k/barrel_01/barrel_01_nor_gl_1k.jpg',
  'barrel_01.bin': 'https://dl.polyhaven.org/file/ph-assets/Models/gltf/barrel_01/barrel_01.bin',
};

/** What GLTFLoader hands the URL modifier for a URI written in the glTF. */
const asLoader = (uri: string): string => LoaderUtils.resolveURL(uri, LoaderUtils.extractUrlBase(GLTF));

describe('include-map URL resolution', () => {
  it('maps the URL the loader derives (gltf folder + relative URI) to the include URL', () => {
    const modify = createIncludeUrlModifier(GLTF, include);
    expect(modify(asLoader('textures/barrel_01_diff_1k.jpg'))).toBe(include['textures/barrel_01_diff_1k.jpg']);
    expect(modify(asLoader('barrel_01.bin'))).toBe(include['barrel_01.bin']);
    expect(modify.mapped.map((m) => m.path)).toEqual(['textures/barrel_01_diff_1k.jpg', 'barrel_01.bin']);
    expect(modify.unmapped).toEqual([]);
  });

  it('matches percent-encoded URIs, ./ and .. segments and backslashes', () => {
    const modify = createIncludeUrlModifier(GLTF, include);
    expect(modify(asLoader('textures/barrel%2001%20nor_gl_1k.jpg'))).toBe(include['textures/barrel 01 nor_gl_1k.jpg']);
    expect(modify(asLoader('./textures/../textures/barrel_01_diff_1k.jpg'))).toBe(include['textures/barrel_01_diff_1k.jpg']);
    expect(modify('textures\\barrel_01_diff_1k.jpg')).toBe(include['textures/barrel_01_diff_1k.jpg']);
    expect(normalizeRelativePath('a/./b/../c%20d.png?x=1#y')).toBe('a/c d.png');
  });

  it('leaves the glTF itself, data: and blob: URLs and absolute URIs elsewhere alone', () => {
    const modify = createIncludeUrlModifier(GLTF, include);
    expect(modify(GLTF)).toBe(GLTF);
    expect(modify('data:application/octet-stream;base64,AAAA')).toBe('data:application/octet-stream;base64,AAAA');
    expect(modify('blob:https://x/1234')).toBe('blob:https://x/1234');
    expect(modify('https://elsewhere.example/tex.png')).toBe('https://elsewhere.example/tex.png');
    expect(modify.mapped).toEqual([]);
    expect(modify.unmapped).toEqual([]);
  });

  it('records relative paths the map does not list and lets them through unchanged (so the failure is real and explained)', () => {
    const modify = createIncludeUrlModifier(GLTF, include);
    const url = asLoader('textures/barrel_01_rough_1k.jpg');
    expect(modify(url)).toBe(url);
    modify(url);
    expect(modify.unmapped).toEqual(['textures/barrel_01_rough_1k.jpg']);
  });
});

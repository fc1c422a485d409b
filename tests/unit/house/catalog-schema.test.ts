import { describe, expect, it } from 'vitest';
import { parseCatalog, pickGltfDownload } from '../../../src/assets/catalog-parse.ts';

describe('the catalog schema', () => {
  it('keeps an asset whose display fields are malformed, with those fields empty', () => {
    const { entries, rejected } = parseCatalog({
      rock_01: {
        name: 'Rock',
        categories: ['Rocks', 3],
        category: 'Nature/Stones',
        tags: 'moss',
        thumbnail_url: 'ftp://x/y.png',
        download_count: Number.NaN,
        authors: ['a'],
      },
    });
    expect(rejected).toEqual([]);
    expect(entries).toEqual([
      { id: 'rock_01', name: 'Rock', categories: ['rocks', 'nature', 'stones'], tags: [], thumbnailUrl: null, downloads: 0, authors: [] },
    ]);
  });

  it('rejects an asset without a name and a value that is not an object', () => {
    const { entries, rejected } = parseCatalog({
      a_1: { tags: ['x'] },
      b_2: 'chair',
      c_3: { name: 'C', authors: { Ana: 'All' }, download_count: 12 },
    });
    expect(rejected).toEqual([
      { key: 'a_1', reason: 'no name' },
      { key: 'b_2', reason: 'no name' },
    ]);
    expect(entries.map((e) => [e.id, e.authors, e.downloads])).toEqual([['c_3', ['Ana'], 12]]);
  });

  it('reads a file list by type guards: the URL and include map of the resolution asked for', () => {
    const files = {
      gltf: {
        '1k': { gltf: { url: 'https://cdn/x.gltf', size: 10, include: { 'a.bin': { url: 'https://cdn/a.bin', size: 5 } } } },
        '2k': 'junk',
      },
    };
    expect(pickGltfDownload(files, '2k')).toEqual({
      resolution: '1k',
      url: 'https://cdn/x.gltf',
      include: { 'a.bin': 'https://cdn/a.bin' },
      bytes: 15,
    });
    expect(() => pickGltfDownload({ gltf: { '1k': { gltf: { url: 'https://cdn/x.gltf', include: { 'a.bin': ['x'] } } } } }, '1k')).toThrow(
      'includes "a.bin" without an absolute http(s) URL',
    );
  });
});

/**
 * Characters as artists build them, loaded for the crowd through the import layer (the same code
 * `crowd.html?model=` runs): rigid parts drawn, height from the whole body, a rig without clips
 * playing the library, and a partial import visible in the report.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { loadCrowdTemplateFromFile, loadCrowdTemplateFromUrl } from '../../../src/crowd/load-template.ts';
import { CrowdTemplate, CrowdTemplateError } from '../../../src/crowd/template.ts';
import { parseRig } from '../../../src/rig/load.ts';

vi.setConfig({ testTimeout: 60_000 });

const FIXTURES = join(import.meta.dirname, '../../fixtures/import');
const bytesOf = (name: string): ArrayBuffer => {
  const buffer = readFileSync(join(FIXTURES, name));
  return buffer.buffer.slice(buffer.byteOffset, buffer.byteOffset + buffer.byteLength) as ArrayBuffer;
};
const file = (name: string): File => new File([new Uint8Array(bytesOf(name))], name);

describe('the crowd gets the whole character', () => {
  it('draws every rigid part of the robot, sizes it by the whole body, and gives it the library', async () => {
    const template = await loadCrowdTemplateFromFile(file('robot-rigid.glb'), { targetHeight: 1.8 });
    const r = template.report;
    // Two skinned hands, the morphing head, and the other twelve parts merged into one piece.
    expect(r.pieces).toBe(4);
    expect(r.drawnVertices).toBe(r.sourceVertices);
    expect(r.morphTargets).toEqual(['visor_open']);
    expect(r.notes.join('\n')).toMatch(/13 rigid part\(s\) under bones became 2 skinned piece\(s\) with rigid weights/);
    // Height from the whole robot: scaled by about 1 (1.8 m / ~1.85 m), not ×200 as from the hands.
    expect(r.scale).toBeGreaterThan(0.85);
    expect(r.scale).toBeLessThan(1.15);
    // No clips in the file: the library's crowd clips, retargeted on load.
    expect(r.clips).toEqual(['idle', 'walk_fwd', 'run_fwd', 'dance', 'wave', 'cheer']);
    expect(r.notes.join('\n')).toMatch(
      /6 library clip\(s\) retargeted onto it for the states its file has no clip for \(idle, walk_fwd, run_fwd, dance, wave, cheer\)/,
    );
    expect(template.clips[template.resolveClip('walk')]!.clip.tracks.length).toBeGreaterThan(10);
  });

  it('reports a partial import when rigid parts are left out (the old behaviour is visible, not silent)', async () => {
    const rig = await parseRig(bytesOf('robot-rigid.glb'), 'robot-rigid.glb', { skinRigidParts: false });
    const template = new CrowdTemplate(rig, { targetHeight: 1.8 });
    expect(template.report.pieces).toBe(2);
    expect(template.report.drawnVertices).toBeLessThan(template.report.sourceVertices / 5);
    // The hands alone are tiny: the scale gives the game away too.
    expect(template.report.scale).toBeGreaterThan(5);
  });

  it('scales a centimetre character to metres before the crowd sees it', async () => {
    const template = await loadCrowdTemplateFromFile(file('mannequin-cm.glb'));
    expect(template.bounds.max.y - template.bounds.min.y).toBeGreaterThan(1.6);
    expect(template.bounds.max.y - template.bounds.min.y).toBeLessThan(2);
    expect(template.report.notes.join('\n')).toMatch(/centimetres/);
  });

  it('names the cause of a URL that cannot be read: CORS, 404, an HTML page', async () => {
    // A page on one origin asking another that sends no Access-Control-Allow-Origin: fetch rejects.
    vi.stubGlobal('location', { href: 'http://cairn.test/crowd.html', origin: 'http://cairn.test' });
    try {
      vi.stubGlobal('fetch', () => Promise.reject(new TypeError('Failed to fetch')));
      const cors = await loadCrowdTemplateFromUrl('https://models.example/hero.glb').catch((e: unknown) => e);
      expect((cors as Error).message).toMatch(
        /^hero\.glb: could not be fetched: the server at https:\/\/models\.example did not allow this page to read it \(CORS: it must send Access-Control-Allow-Origin\)/,
      );
      vi.stubGlobal('fetch', () => Promise.resolve(new Response('nope', { status: 404, statusText: 'Not Found' })));
      expect(((await loadCrowdTemplateFromUrl('http://cairn.test/models/gone.glb').catch((e: unknown) => e)) as Error).message).toMatch(
        /^gone\.glb: HTTP 404 \(not found/,
      );
      vi.stubGlobal('fetch', () => Promise.resolve(new Response('<!doctype html><p>login</p>', { status: 200 })));
      expect(((await loadCrowdTemplateFromUrl('http://cairn.test/models/login.glb').catch((e: unknown) => e)) as Error).message).toMatch(
        /^login\.glb: it is an HTML page, not a model/,
      );
    } finally {
      vi.unstubAllGlobals();
    }
  });

  it('refuses mocap with the reason', async () => {
    const error = await loadCrowdTemplateFromFile(file('walk-cm.bvh')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CrowdTemplateError);
    expect((error as Error).message).toMatch(
      /^walk-cm\.bvh: has a skeleton \(\d+ bones\) but no mesh: nothing to draw; it can serve as a clip source$/,
    );
  });
});

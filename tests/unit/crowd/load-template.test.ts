import { describe, expect, it } from 'vitest';
import { loadCrowdTemplateFromFile, type LoadPhase } from '../../../src/crowd/load-template.ts';
import { CrowdTemplateError } from '../../../src/crowd/template.ts';
import { buildFixtureCharacter, buildStaticModel, exportGlb } from '../../harness/crowd-fixtures.ts';

const file = (bytes: ArrayBuffer | Uint8Array, name: string): File => new File([new Uint8Array(bytes)], name);

describe('loading a character for the crowd', () => {
  it('reads a GLB with several pieces, morphs and 8 influences, reporting progress', async () => {
    const fixture = buildFixtureCharacter({ bones: 17, pieces: 2, influences: 8, morphs: true, height: 170 });
    const phases: LoadPhase[] = [];
    const template = await loadCrowdTemplateFromFile(file(await exportGlb(fixture.object, fixture.clips), 'hero.glb'), {
      targetHeight: 1.8,
      onProgress: ({ done, total, label }) => {
        if (done === total) phases.push(label);
      },
    });
    expect(phases).toEqual(['download', 'parse', 'prepare']);
    expect(template.name).toBe('hero.glb');
    expect(template.report).toMatchObject({ pieces: 2, bones: 17, morphTargetsRemoved: 4, clips: ['sway'] });
    expect(template.report.clampedVertices).toBeGreaterThan(0);
    expect(template.bounds.max.y).toBeCloseTo(1.8, 2);
  });

  it('explains every failure in one error naming the file', async () => {
    const cases: Array<[File, RegExp]> = [
      [
        file(await exportGlb(buildStaticModel()), 'statue.glb'),
        /^statue\.glb: has no skeleton: \d+ mesh(es)? and no bones or animated nodes; a character needs a skinned mesh$/,
      ],
      [file(new TextEncoder().encode('not a model'), 'junk.glb'), /^junk\.glb: it is not a glTF\/GLB file/],
      [file(new Uint8Array(4), 'picture.png'), /picture\.png: unsupported file type; Cairn reads \.glb, \.gltf, \.fbx and \.bvh files/],
    ];
    const big = buildFixtureCharacter({ bones: 300 });
    cases.push([
      file(await exportGlb(big.object, big.clips), 'centipede.glb'),
      /"centipede\.glb" has 300 bones; this crowd's bone buffers are sized for at most 256/,
    ]);
    for (const [input, message] of cases) {
      const error = await loadCrowdTemplateFromFile(input, { maxBones: 256 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(CrowdTemplateError);
      expect((error as Error).message).toMatch(message);
    }
  });
});

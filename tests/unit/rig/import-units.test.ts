/**
 * Unit detection for mocap under a scaled node: the import judges a skeleton's unit by its own bone
 * lengths, inside any uniform scale the file's nodes above it apply (CMU's FBX release wraps bones
 * in CMU units in a node scaled by 100). Files are built here with glTF Transform: a skin with no
 * mesh, so three's loader makes Bones and the file is skeleton-only, as mocap is.
 */
import { Document, NodeIO, type Node } from '@gltf-transform/core';
import { describe, expect, it } from 'vitest';
import { detectUnits, parseRig } from '../../../src/rig/import/import-model.ts';

const CMU_UNIT = 0.0254 / 0.45;

/**
 * A skeleton-only GLB: hips, a spine to the head and a leg to the toe, `height` file units from toe
 * to head joint with the hips at 55 % of it, under a root node of scale `wrapper`.
 */
async function mocapGlb(height: number, wrapper: [number, number, number]): Promise<ArrayBuffer> {
  const doc = new Document();
  const buffer = doc.createBuffer();
  const root = doc.createNode('07_01').setScale(wrapper);
  const hips = doc.createNode('Hips').setTranslation([0, 0.55 * height, 0]);
  const chain = (parent: Node, names: string[], step: number): Node[] =>
    names.map((name) => {
      const node = doc.createNode(name).setTranslation([0, step, 0]);
      parent.addChild(node);
      parent = node;
      return node;
    });
  const upper = chain(hips, ['Spine', 'Neck', 'Head'], (0.45 * height) / 3);
  const leg = chain(hips, ['LeftUpLeg', 'LeftLeg', 'LeftFoot'], (-0.55 * height) / 3);
  root.addChild(hips);
  const joints = [hips, ...upper, ...leg];
  const identity = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1];
  const inverseBind = doc
    .createAccessor()
    .setType('MAT4')
    .setArray(new Float32Array(joints.flatMap(() => identity)))
    .setBuffer(buffer);
  const skin = doc.createSkin().setInverseBindMatrices(inverseBind).setSkeleton(hips);
  for (const joint of joints) skin.addJoint(joint);
  doc.createScene().addChild(root);
  const bytes = await new NodeIO().writeBinary(doc);
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

describe('mocap units are judged inside the scale of the nodes above the skeleton', () => {
  it('reads a 25-unit skeleton scaled by 100 as CMU units (a person), not as 2,500 millimetres', async () => {
    const rig = await parseRig(await mocapGlb(25.5, [100, 100, 100]), 'wrapped.glb');
    expect(rig.report.skeletonOnly).toBe(true);
    expect(rig.report).toMatchObject({ units: 'cmu', rootScale: 100 });
    expect(rig.report.metresPerUnit).toBeCloseTo(CMU_UNIT / 100, 9);
    expect(rig.report.height).toBeCloseTo(25.5 * CMU_UNIT, 3);
    const note = rig.report.notes.join('\n');
    expect(note).toMatch(/skeleton authored in CMU mocap units .*25\.5 units tall in its own bone lengths/);
    expect(note).toMatch(/under node "07_01", which scales it by 100/);
    expect(note).toMatch(/2550 units overall would read as millimetres/);
  });

  it('gives the same person whatever uniform scale wraps the skeleton', async () => {
    for (const scale of [1, 0.01, 10, 100]) {
      const rig = await parseRig(await mocapGlb(25.5, [scale, scale, scale]), `s${scale}.glb`);
      expect(rig.report.units).toBe('cmu');
      expect(rig.report.rootScale).toBeCloseTo(scale, 6);
      expect(rig.report.height).toBeCloseTo(25.5 * CMU_UNIT, 3);
    }
    // Centimetres under a 0.01 node are metres overall: no scale at all, the same 1.7 m.
    const cm = await parseRig(await mocapGlb(170, [0.01, 0.01, 0.01]), 'cm.glb');
    expect(cm.report).toMatchObject({ units: 'cm', rootScale: 0.01 });
    expect(cm.report.metresPerUnit).toBeCloseTo(1, 9);
    expect(cm.report.height).toBeCloseTo(1.7, 3);
  });

  it('does not divide out a non-uniform scale (no unit) and honours a given unit', async () => {
    const squashed = await parseRig(await mocapGlb(25.5, [100, 50, 100]), 'squashed.glb');
    expect(squashed.report.rootScale).toBe(1);
    const given = await parseRig(await mocapGlb(25.5, [100, 100, 100]), 'given.glb', { metresPerUnit: 0.001 });
    expect(given.report).toMatchObject({ units: 'given', metresPerUnit: 0.001, rootScale: 1 });
    expect(given.report.height).toBeCloseTo(2.55, 3);
  });

  it('keeps the height rules: mm over 400, CMU 12–40 and inches 40–100 for mocap, cm over 12, else m', () => {
    expect(detectUnits(2550, true).unit).toBe('mm');
    expect(detectUnits(25.5, true)).toEqual({ unit: 'cmu', metres: CMU_UNIT });
    expect(detectUnits(57, true).unit).toBe('in');
    expect(detectUnits(57, false).unit).toBe('cm');
    expect(detectUnits(170, true).unit).toBe('cm');
    expect(detectUnits(1.7, true).unit).toBe('m');
    expect(detectUnits(0, true).unit).toBe('m');
  });
});

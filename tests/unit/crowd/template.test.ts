import { Matrix4, Vector3, type SkinnedMesh } from 'three';
import { describe, expect, it } from 'vitest';
import { prepareCrowdGeometry } from '../../../src/crowd/geometry-prep.ts';
import { CrowdTemplate, CrowdTemplateError } from '../../../src/crowd/template.ts';
import { createHumanoid } from '../../../src/rig/humanoid.ts';
import { buildFixtureCharacter, buildStaticModel } from '../../harness/crowd-fixtures.ts';

describe('geometry preparation', () => {
  it('removes morph targets (else three injects morph code into the crowd shader)', () => {
    const humanoid = createHumanoid({ detail: 'low' });
    const head = humanoid.meshes.find((m) => m.name === 'head')!;
    expect(head.geometry.morphAttributes.position).toHaveLength(3);
    const identity = Int32Array.from(humanoid.bones, (_, i) => i);
    const prepared = prepareCrowdGeometry(head, identity);
    expect(prepared.geometry.morphAttributes).toEqual({});
    expect(prepared.morphTargetsRemoved).toBe(3);
    // The source model is left as it was.
    expect(head.geometry.morphAttributes.position).toHaveLength(3);
    expect(prepared.geometry.getAttribute('position').count).toBe(head.geometry.getAttribute('position').count);
    expect(prepared.geometry.hasAttribute('color')).toBe(true);
  });

  it('moves positions and normals into bind space (the bind matrix applied once)', () => {
    const fixture = buildFixtureCharacter({ bones: 4 });
    const mesh = fixture.meshes[0]!;
    // Rebind the piece as if it had been bound 2 m up and turned a quarter.
    const bind = new Matrix4().makeRotationY(Math.PI / 2).setPosition(0, 2, 0);
    mesh.bind(mesh.skeleton, bind);
    const prepared = prepareCrowdGeometry(mesh, [0, 1, 2, 3]);
    const source = mesh.geometry.getAttribute('position');
    const out = prepared.geometry.getAttribute('position');
    for (const i of [0, 7, 21]) {
      const expected = new Vector3().fromBufferAttribute(source, i).applyMatrix4(bind);
      expect(new Vector3().fromBufferAttribute(out, i).distanceTo(expected)).toBeLessThan(1e-5);
    }
    const n = new Vector3().fromBufferAttribute(prepared.geometry.getAttribute('normal'), 0);
    const n0 = new Vector3().fromBufferAttribute(mesh.geometry.getAttribute('normal'), 0).applyAxisAngle(new Vector3(0, 1, 0), Math.PI / 2);
    expect(n.distanceTo(n0)).toBeLessThan(1e-5);
  });

  it('cuts eight influences to the strongest four and drops the extra sets', () => {
    const fixture = buildFixtureCharacter({ bones: 12, influences: 8 });
    // three's loader names the second set joints_1/weights_1; the fixture builder uses glTF names.
    const geometry = fixture.meshes[0]!.geometry;
    geometry.setAttribute('joints_1', geometry.getAttribute('JOINTS_1'));
    geometry.setAttribute('weights_1', geometry.getAttribute('WEIGHTS_1'));
    geometry.deleteAttribute('JOINTS_1');
    geometry.deleteAttribute('WEIGHTS_1');
    const prepared = prepareCrowdGeometry(
      fixture.meshes[0]!,
      Int32Array.from({ length: 12 }, (_, i) => i),
    );
    expect(prepared.clampedVertices).toBe(geometry.getAttribute('position').count);
    const weights = prepared.geometry.getAttribute('skinWeight');
    for (let v = 0; v < weights.count; v++) {
      const sum = weights.getX(v) + weights.getY(v) + weights.getZ(v) + weights.getW(v);
      expect(sum).toBeCloseTo(1, 5);
      expect(weights.getX(v)).toBeGreaterThanOrEqual(weights.getW(v));
    }
    expect(prepared.geometry.hasAttribute('joints_1')).toBe(false);
  });
});

describe('CrowdTemplate', () => {
  it('prepares the humanoid: 3 pieces, 64 bones, six clips, no morph targets left', () => {
    const template = new CrowdTemplate(createHumanoid({ detail: 'low' }));
    expect(template.report).toMatchObject({ pieces: 3, bones: 64, morphTargetsRemoved: 3, clampedVertices: 0, droppedTracks: 0 });
    expect(template.clips.map((c) => c.name)).toEqual(['idle', 'walk', 'run', 'jump', 'wave', 'dance']);
    expect(template.clips.find((c) => c.name === 'jump')!.loop).toBe(false);
    for (const piece of template.pieces) expect(piece.geometry.morphAttributes).toEqual({});
    expect(template.bounds.max.y).toBeGreaterThan(1.7);
    expect(template.bounds.min.y).toBeGreaterThan(-0.05);
  });

  it('unites several pieces with their own Skeleton objects into one bone order', () => {
    const fixture = buildFixtureCharacter({ bones: 9, pieces: 3, skeletonPerPiece: true });
    expect(new Set(fixture.meshes.map((m) => m.skeleton)).size).toBe(3);
    const template = new CrowdTemplate(fixture);
    expect(template.boneCount).toBe(9);
    expect(template.pieces).toHaveLength(3);
  });

  it('gives a bone bound with two different inverses two rows', () => {
    const fixture = buildFixtureCharacter({ bones: 3, pieces: 2, skeletonPerPiece: true });
    const second = fixture.meshes[1]! as SkinnedMesh;
    second.skeleton.boneInverses[0] = new Matrix4().makeTranslation(0, -0.5, 0);
    expect(new CrowdTemplate(fixture).boneCount).toBe(4);
  });

  it('scales to a target height and finds clips by name or by the state their name reads as', () => {
    const fixture = buildFixtureCharacter({ height: 180 });
    const template = new CrowdTemplate(fixture, { targetHeight: 1.8 });
    expect(template.report.scale).toBeCloseTo(0.01, 4);
    expect(template.bounds.max.y).toBeCloseTo(1.8, 3);
    expect(template.clipIndex('sway')).toBe(0);
    // No loose matching: a name that is neither a clip's nor a state a clip reads as finds nothing.
    expect(template.clipIndex('SWA')).toBe(-1);
    expect(template.clipIndex('walk')).toBe(-1);
    expect(template.resolveClip('walk')).toBe(0);
  });

  it('drops clip tracks a bones-only clone cannot play (morph weights, missing nodes)', () => {
    const fixture = buildFixtureCharacter({ bones: 4, morphs: true });
    const clip = fixture.clips[0]!;
    const morph = clip.tracks[0]!.clone();
    morph.name = 'piece_0.morphTargetInfluences';
    const missing = clip.tracks[0]!.clone();
    missing.name = 'no_such_bone.quaternion';
    clip.tracks.push(morph, missing);
    const template = new CrowdTemplate(fixture);
    expect(template.report.droppedTracks).toBe(2);
    expect(template.clips[0]!.clip.tracks).toHaveLength(4);
  });

  it('stands a model without clips in its bind pose', () => {
    const fixture = buildFixtureCharacter({ bones: 3 });
    const template = new CrowdTemplate({ object: fixture.object });
    expect(template.clips.map((c) => [c.name, c.duration])).toEqual([['bind', 0]]);
  });

  it('rejects a model with no skeleton, clearly', () => {
    expect(() => new CrowdTemplate({ object: buildStaticModel() })).toThrow(CrowdTemplateError);
    expect(() => new CrowdTemplate({ object: buildStaticModel() })).toThrow(
      /"statue" has no skinned mesh: a crowd character needs a skeleton/,
    );
  });

  it('rejects more bones than the buffers are sized for, naming both numbers', () => {
    const fixture = buildFixtureCharacter({ bones: 40 });
    expect(() => new CrowdTemplate(fixture, { maxBones: 32 })).toThrow(/has 40 bones; this crowd's bone buffers are sized for at most 32/);
  });
});

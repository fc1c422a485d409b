import { Quaternion, Vector3 } from 'three';
import { describe, expect, it } from 'vitest';
import { MANNEQUIN } from '../../../src/rig/mannequin.ts';
import { buildSkeleton, validateSkeletonDef, type SkeletonDef } from '../../../src/rig/skeleton-def.ts';

describe('mannequin rig', () => {
  it('has ~65 uniquely named bones in UE5 mannequin naming, one root', () => {
    const names = MANNEQUIN.bones.map((b) => b.name);
    expect(names.length).toBeGreaterThanOrEqual(60);
    expect(names.length).toBeLessThanOrEqual(70);
    expect(new Set(names).size).toBe(names.length);
    for (const name of [
      'root',
      'pelvis',
      'spine_01',
      'spine_05',
      'neck_01',
      'head',
      'clavicle_l',
      'upperarm_r',
      'lowerarm_l',
      'hand_r',
      'thumb_03_l',
      'pinky_01_r',
      'thigh_l',
      'calf_r',
      'foot_l',
      'ball_r',
      'upperarm_twist_01_l',
    ]) {
      expect(names).toContain(name);
    }
    expect(() => validateSkeletonDef(MANNEQUIN)).not.toThrow();
  });

  it('builds bones whose world positions are the definition heads (T-pose)', () => {
    const { byName, bones } = buildSkeleton(MANNEQUIN);
    expect(bones).toHaveLength(MANNEQUIN.bones.length);
    for (const def of MANNEQUIN.bones) {
      const p = new Vector3().setFromMatrixPosition(byName.get(def.name)!.matrixWorld);
      expect(p.distanceTo(new Vector3(...def.head))).toBeLessThan(1e-6);
    }
    // Left is +X, the character faces +Z.
    expect(MANNEQUIN.bones.find((b) => b.name === 'hand_l')!.head[0]).toBeGreaterThan(0.5);
    expect(MANNEQUIN.bones.find((b) => b.name === 'ball_l')!.head[2]).toBeGreaterThan(0.05);
  });

  it('places heads correctly when bones carry bind rotations (A-pose rigs)', () => {
    const q = new Quaternion().setFromAxisAngle(new Vector3(0, 0, 1), -0.8);
    const def: SkeletonDef = {
      name: 'a-pose',
      bones: [
        { name: 'root', parent: null, head: [0, 0, 0] },
        { name: 'arm', parent: 'root', head: [0, 1, 0], rotation: [q.x, q.y, q.z, q.w] },
        { name: 'hand', parent: 'arm', head: [0.5, 0.6, 0] },
      ],
    };
    const { byName } = buildSkeleton(def);
    expect(new Vector3().setFromMatrixPosition(byName.get('hand')!.matrixWorld).distanceTo(new Vector3(0.5, 0.6, 0))).toBeLessThan(1e-6);
  });

  it('reports every problem of a broken definition at once', () => {
    const broken: SkeletonDef = {
      name: 'broken',
      bones: [
        { name: 'root', parent: null, head: [0, 0, 0] },
        { name: 'a', parent: 'missing', head: [0, 1, 0] },
        { name: 'a', parent: 'root', head: [0, 1, 0] },
        { name: 'b', parent: null, head: [0, 1, 0] },
      ],
    };
    expect(() => validateSkeletonDef(broken)).toThrow(/parent "missing"[\s\S]*duplicate bone name "a"[\s\S]*exactly one root/);
  });
});

/**
 * Real artists' FBX characters (Quaternius's zombie and Male_Casual, CC0, exported from Blender; see
 * tests/fixtures/README.md) loaded for the crowd through the import layer, as `crowd.html?model=`
 * loads them: the whole skinned mesh drawn, their own clips kept, standing on the floor at the
 * height asked for, in the bind pose rather than the animation frame the file was saved on.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Box3, Vector3, type SkinnedMesh } from 'three';
import { describe, expect, it, vi } from 'vitest';
import { loadCrowdTemplateFromFile } from '../../../src/crowd/load-template.ts';
import { parseRig } from '../../../src/rig/load.ts';

vi.setConfig({ testTimeout: 60_000 });

const NAME = 'quaternius-zombie.fbx';
const bytes = readFileSync(join(import.meta.dirname, '../../fixtures/import', NAME));
const file = (): File => new File([new Uint8Array(bytes)], NAME);
const CLIPS = ['Zombie|ZombieRun', 'Zombie|ZombieBite', 'Zombie|ZombieCrawl', 'Zombie|ZombieWalk', 'Zombie|ZombieIdle'];

describe('a real Blender FBX character in the crowd', () => {
  it('draws the whole skinned mesh, keeps its five clips and stands 1.8 m tall on the floor', async () => {
    const template = await loadCrowdTemplateFromFile(file(), { targetHeight: 1.8 });
    const r = template.report;
    expect(r.pieces).toBe(1);
    expect(r.sourceVertices).toBe(6348);
    expect(r.drawnVertices).toBe(r.sourceVertices);
    expect(r.unweightedVertices).toBe(0);
    // 48 bones in the file; the 7 leaf "_end" bones Blender adds carry no weights and no motion.
    expect(r.bones).toBe(41);
    // Its own clips for the states they cover (idle, walk, run); the library only for the rest.
    expect(r.clips).toEqual([...CLIPS, 'dance', 'wave', 'cheer']);
    expect(r.clipStates).toMatchObject({ idle: 'Zombie|ZombieIdle', walk: 'Zombie|ZombieWalk', run: 'Zombie|ZombieRun', dance: 'dance' });
    expect(r.notes.join('\n')).toMatch(
      /3 library clip\(s\) retargeted onto it for the states its file has no clip for \(dance, wave, cheer\)/,
    );
    expect(template.clips[template.resolveClip('Zombie|ZombieWalk')]!.clip.duration).toBeCloseTo(4, 1);
    // The file is 824 units tall and read as millimetres; the crowd scales it to the height asked for.
    expect(r.notes.join('\n')).toMatch(/authored in millimetres \(824 units tall\)/);
    // (The crowd measures the skinned mesh alone: 0.815 m; the import adds the bone tips above the head.)
    expect(r.scale).toBeCloseTo(1.8 / 0.815, 2);
    // Upright, feet on the floor, the height asked for (bounds over every clip's poses).
    const size = template.bounds.getSize(new Vector3());
    expect(size.y).toBeGreaterThan(1.75);
    expect(size.y).toBeLessThan(1.85);
    expect(Math.abs(template.bounds.min.y)).toBeLessThan(0.02);
  });

  it('rests in the bind pose: the mesh at rest is the mesh the artist skinned, a person standing', async () => {
    const rig = await parseRig(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, NAME);
    const mesh = rig.skinnedMeshes[0]! as SkinnedMesh;
    rig.object.updateMatrixWorld(true);
    // Every skinned bone sits where the skin was bound (the file's node transforms are a saved
    // animation frame: up to 0.67 m and 177° away from the bind pose without the correction).
    let worst = 0;
    mesh.skeleton.bones.forEach((bone, i) => {
      const bind = mesh.skeleton.boneInverses[i]!.clone().invert();
      worst = Math.max(worst, ...bone.matrixWorld.elements.map((v, k) => Math.abs(v - bind.elements[k]!)));
    });
    expect(worst).toBeLessThan(1e-6);
    // The skinned mesh at rest, as three.js poses it, matches the bind-space geometry.
    const posed = new Box3();
    const vertex = new Vector3();
    const position = mesh.geometry.getAttribute('position');
    for (let i = 0; i < position.count; i += 7) posed.expandByPoint(mesh.applyBoneTransform(i, vertex.fromBufferAttribute(position, i)));
    posed.applyMatrix4(mesh.matrixWorld);
    expect(posed.max.y - posed.min.y).toBeCloseTo(rig.report.height, 1);
    expect(Math.abs(posed.min.y)).toBeLessThan(0.01);
    // A standing person: head above hips above knees above feet.
    const y = (name: string): number => rig.bones.find((b) => b.name === name)!.getWorldPosition(new Vector3()).y;
    expect(y('Head')).toBeGreaterThan(y('Hips'));
    expect(y('Hips')).toBeGreaterThan(y('LeftLeg'));
    expect(y('LeftLeg')).toBeGreaterThan(y('LeftFoot'));
    expect(y('RightLeg')).toBeGreaterThan(y('RightFoot'));
  });
});

describe('a Blender IK rig in the crowd (Quaternius Male_Casual: feet under the root, legs under Body)', () => {
  const MALE_CASUAL = 'quaternius-male-casual.fbx';
  const maleBytes = readFileSync(join(import.meta.dirname, '../../fixtures/import', MALE_CASUAL));
  const MALE_CLIPS = ['Walk', 'Run', 'Death', 'Idle', 'Sitting', 'Standing', 'Jump', 'SwordSlash', 'RunningJump', 'Clapping', 'Punch'].map(
    (name) => `HumanArmature|Man_${name}`,
  );

  it('draws every vertex, keeps its eleven clips and stands 1.8 m tall on the floor', async () => {
    const template = await loadCrowdTemplateFromFile(new File([new Uint8Array(maleBytes)], MALE_CASUAL), { targetHeight: 1.8 });
    const r = template.report;
    expect(r.pieces).toBe(1);
    expect(r.sourceVertices).toBe(5538);
    expect(r.drawnVertices).toBe(r.sourceVertices);
    expect(r.unweightedVertices).toBe(0);
    // 42 bones in the file; the 11 leaf "_end" bones Blender adds carry no weights and no motion.
    expect(r.bones).toBe(31);
    expect(r.clips).toEqual([...MALE_CLIPS, 'dance', 'wave', 'cheer']);
    expect(r.clipStates).toMatchObject({ idle: 'HumanArmature|Man_Idle', walk: 'HumanArmature|Man_Walk', run: 'HumanArmature|Man_Run' });
    expect(template.clips[template.resolveClip('HumanArmature|Man_Walk')]!.clip.duration).toBeCloseTo(1.04, 2);
    // 485 units tall, read as millimetres; the crowd scales its 0.484 m skinned mesh to the height asked for.
    expect(r.notes.join('\n')).toMatch(/authored in millimetres \(485 units tall\)/);
    expect(r.scale).toBeGreaterThan(1.8 / 0.49);
    expect(r.scale).toBeLessThan(1.8 / 0.48);
    const size = template.bounds.getSize(new Vector3());
    expect(size.y).toBeGreaterThan(1.75);
    expect(size.y).toBeLessThan(1.85);
    expect(Math.abs(template.bounds.min.y)).toBeLessThan(0.02);
    // Upright: front to back it is a body's depth (0.35 m), not a figure lying along the floor.
    expect(size.z).toBeLessThan(0.5);
  });
});

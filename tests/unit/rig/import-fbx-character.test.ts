/**
 * A real artist's FBX character (Quaternius's zombie, CC0, exported from Blender; see
 * tests/fixtures/README.md) loaded for the crowd through the import layer, as `crowd.html?model=`
 * loads it: the whole skinned mesh drawn, its own clips kept, standing on the floor at the height
 * asked for, in its bind pose rather than the animation frame the file was saved on.
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
    // Its own clips, not the library's: nothing retargeted on load.
    expect(r.clips).toEqual(CLIPS);
    expect(r.notes.join('\n')).not.toMatch(/library clips retargeted/);
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

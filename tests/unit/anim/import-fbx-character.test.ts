/**
 * A real artist's skinned FBX character (Quaternius's zombie, CC0, a binary FBX exported from
 * Blender; see tests/fixtures/README.md) through the command-line code as `npm run …` runs it: the
 * parity check with it as the target and as the source, the library retargeted onto it and written
 * as a GLB that reads back at the same size, and that GLB's LOD levels.
 */
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeIO } from '@gltf-transform/core';
import { AnimationMixer, Vector3 } from 'three';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkCommand } from '../../../src/anim/node/check-command.ts';
import type { CommandIO } from '../../../src/anim/node/cli.ts';
import { retargetCommand } from '../../../src/anim/node/retarget-command.ts';
import { readModelFile } from '../../../src/rig/node/model-file.ts';
import { runLodCommand } from '../../../src/scatter/lod-command.ts';

vi.setConfig({ testTimeout: 60_000 });

const ZOMBIE = join(import.meta.dirname, '../../fixtures/import/quaternius-zombie.fbx');
const CLIPS = ['Zombie|ZombieRun', 'Zombie|ZombieBite', 'Zombie|ZombieCrawl', 'Zombie|ZombieWalk', 'Zombie|ZombieIdle'];

function capture(): CommandIO & { text(): string } {
  const lines: string[] = [];
  return { out: (l) => lines.push(l), err: (l) => lines.push(l), text: () => lines.join('\n') };
}

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-fbx-character-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a real skinned FBX character through the command-line code', () => {
  it('reads as a character: one skinned mesh, a Mixamo-named skeleton, five clips, millimetres', async () => {
    const model = await readModelFile(ZOMBIE);
    expect(model.format).toBe('fbx');
    expect(model.document).toBeNull();
    expect(model.report).toMatchObject({
      units: 'mm',
      metresPerUnit: 0.001,
      upAxis: 'y',
      skeletonOnly: false,
      sourceVertices: 6348,
      skinnedVertices: 6348,
      rigidPieces: [],
      unattachedMeshes: [],
    });
    expect(model.report.height).toBeCloseTo(0.824, 3);
    expect(model.skinnedMeshes).toHaveLength(1);
    expect(model.bones).toHaveLength(48);
    expect(model.bones.map((b) => b.name)).toEqual(
      expect.arrayContaining(['Hips', 'Spine2', 'LeftUpLeg', 'LeftLeg', 'LeftFoot', 'RightToeBase', 'RightForeArm', 'Head']),
    );
    expect(model.clips.map((c) => c.name)).toEqual(CLIPS);
    expect(model.clips.map((c) => +c.duration.toFixed(2))).toEqual([0.79, 5.04, 5.13, 4, 5.54]);
  });

  it("plays its own clips on the character, also when the file is named like its armature (Blender's Zombie.fbx)", async () => {
    // The name Quaternius ships it under: the armature node inside is called "Zombie" too, and the clips animate it.
    const named = join(dir, 'Zombie.fbx');
    copyFileSync(ZOMBIE, named);
    for (const file of [ZOMBIE, named]) {
      const model = await readModelFile(file);
      expect(model.object.getObjectByName('Zombie')).not.toBe(model.object);
      const mixer = new AnimationMixer(model.object);
      mixer.clipAction(model.clips.find((c) => c.name === 'Zombie|ZombieWalk')!).play();
      mixer.update(1);
      model.object.updateMatrixWorld(true);
      // The wrapper stays put (metres, at the origin); the hips walk at hip height, not 107 times it.
      expect(model.object.scale.toArray()).toEqual([1, 1, 1]);
      expect(model.object.position.length()).toBe(0);
      const hips = model.bones.find((b) => b.name === 'Hips')!.getWorldPosition(new Vector3());
      expect(hips.y, file).toBeGreaterThan(0.3);
      expect(hips.y, file).toBeLessThan(0.5);
    }
  });

  it('passes the parity check as the target of library clips, turns included', async () => {
    const io = capture();
    const clips = ['idle', 'walk_fwd', 'run_fwd', 'turn_left', 'turn_right', 'jump'].flatMap((c) => ['--clip', c]);
    expect(await checkCommand(['--target', ZOMBIE, ...clips], io), io.text()).toBe(0);
    expect(io.text()).toMatch(/authored in millimetres \(824 units tall\): scaled by 0\.001/);
    expect(io.text()).toMatch(/→ target .*quaternius-zombie\.fbx \(auto map\): 34 bones mapped/);
    for (const line of [
      /hips\s+pelvis → Hips/,
      /spine\s+spine_01 → Spine/,
      /leftUpperLeg\s+thigh_l → LeftUpLeg/,
      /leftLowerLeg\s+calf_l → LeftLeg/,
      /rightFoot\s+foot_r → RightFoot/,
      /leftLowerArm\s+lowerarm_l → LeftForeArm/,
      /rightHand\s+hand_r → RightHand/,
    ])
      expect(io.text()).toMatch(line);
    // The turns swing the legs about a toe bone whose parents carry a little non-uniform scale: the
    // rotation drift stays a measurement, not an artefact of off-unit quaternions.
    expect(io.text()).toMatch(/✓ turn_left\s+61 /);
    expect(io.text()).not.toMatch(/implausible|✗/);
    expect(io.text()).toMatch(/\nPASS$/);
  });

  it('passes the parity check as the source of its own clips onto CC4 and writes them', async () => {
    const io = capture();
    const out = join(dir, 'cc4-zombie.glb');
    const report = join(dir, 'zombie-cc4.json');
    expect(await checkCommand([ZOMBIE, 'builtin:cc4', '--out', out, '--report', report], io), io.text()).toBe(0);
    expect(io.text()).toMatch(/quaternius-zombie\.fbx \(auto map\) → target builtin:cc4 \(cc4 map\): 34 bones mapped/);
    expect(io.text()).toMatch(/leftLowerLeg\s+LeftLeg → CC_Base_L_Calf/);
    expect(io.text()).toMatch(/\nPASS$/);
    const figures = JSON.parse(readFileSync(report, 'utf8')) as {
      clips: Array<{ clip: string; rotationDriftDeg: { value: number }; positionDrift: { value: number } }>;
    };
    expect(figures.clips.map((c) => c.clip)).toEqual(CLIPS);
    for (const clip of figures.clips) {
      // Well inside the bounds (0.25°, 1 mm): the crawl, the largest motion, drifts 0.005°.
      expect(clip.rotationDriftDeg.value, clip.clip).toBeLessThan(0.05);
      expect(clip.positionDrift.value, clip.clip).toBeLessThan(0.1);
    }
    const written = await readModelFile(out);
    expect(written.clips.map((c) => c.name)).toEqual(CLIPS);
    expect(written.clips.find((c) => c.name === 'Zombie|ZombieWalk')!.duration).toBeCloseTo(4, 1);
  });

  it('retargets library clips onto it and writes a GLB that reads back at the same size, then bakes its LODs', async () => {
    const io = capture();
    const out = join(dir, 'zombie-walk.glb');
    expect(await retargetCommand(['--target', ZOMBIE, '--clip', 'walk_fwd', '--clip', 'idle', '-o', out], io), io.text()).toBe(0);
    expect(io.text()).toMatch(/target .*quaternius-zombie\.fbx: 48 bones \(auto map\)/);
    expect(io.text()).toMatch(/wrote .*zombie-walk\.glb \(quaternius-zombie with 2 clips/);
    const imported = await readModelFile(ZOMBIE);
    const written = await readModelFile(out);
    expect(written.clips.map((c) => c.name)).toEqual(['idle', 'walk_fwd']);
    // The same character: every vertex, metres now, the same height (the bone tips Blender adds above
    // the head are not skinned and are not bones in the GLB: 41 of 48).
    expect(written.report).toMatchObject({ units: 'm', sourceVertices: 6348, skinnedVertices: 6348 });
    expect(written.report.height).toBeGreaterThan(imported.report.height - 0.02);
    expect(written.report.height).toBeLessThan(imported.report.height + 0.001);
    expect(written.bones).toHaveLength(41);
    // Its material (the file has no image: its colours are in the material) comes through by name.
    const document = await new NodeIO().read(out);
    expect(
      document
        .getRoot()
        .listMaterials()
        .map((m) => m.getName()),
    ).toEqual(['Texture']);
    expect(document.getRoot().listTextures()).toHaveLength(0);
    // The written GLB goes through `npm run lod`.
    const lod = capture();
    expect(await runLodCommand([out, '--json'], lod), lod.text()).toBe(0);
    const result = JSON.parse(lod.text()) as { ok: boolean; pieces: Array<{ triangles: number[] }> };
    expect(result.ok).toBe(true);
    expect(result.pieces).toHaveLength(1);
    const triangles = result.pieces[0]!.triangles;
    expect(triangles[0]).toBe(2116);
    expect(triangles.at(-1)!).toBeLessThan(triangles[0]!);
  });
});

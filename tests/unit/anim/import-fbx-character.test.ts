/**
 * A real artist's skinned FBX character (Quaternius's zombie, CC0, a binary FBX exported from
 * Blender; see tests/fixtures/README.md) through the command-line code as `npm run …` runs it: the
 * parity check with it as the target and as the source, the library retargeted onto it and written
 * as a GLB that reads back at the same size, and that GLB's LOD levels.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeIO } from '@gltf-transform/core';
import { AnimationMixer, Vector3 } from 'three';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkCommand } from '../../../src/anim/node/check-command.ts';
import type { CommandIO } from '../../../src/anim/node/cli.ts';
import { retargetCommand } from '../../../src/anim/node/retarget-command.ts';
import { readModelFile, writeModelGlb } from '../../../src/rig/node/model-file.ts';
import { runLodCommand } from '../../../src/scatter/lod-command.ts';

vi.setConfig({ testTimeout: 60_000 });

const ZOMBIE = join(import.meta.dirname, '../../fixtures/import/quaternius-zombie.fbx');
const CLIPS = ['Zombie|ZombieRun', 'Zombie|ZombieBite', 'Zombie|ZombieCrawl', 'Zombie|ZombieWalk', 'Zombie|ZombieIdle'];

function capture(): CommandIO & { text(): string } {
  const lines: string[] = [];
  return { out: (l) => lines.push(l), err: (l) => lines.push(l), text: () => lines.join('\n') };
}

/**
 * A small ASCII FBX 7.4 as FBX exporters write a textured model (centimetres): two LimbNode bones,
 * a triangle under the hips, its material's diffuse colour from `Textures/skin.png` (a Video node
 * naming the file, and with `embedded` its bytes in the Video's Content).
 */
function texturedFbx(embedded?: Uint8Array): string {
  const content = embedded ? `\n\t\tContent: ,"${Buffer.from(embedded).toString('base64')}"` : '';
  const limb = (id: number, name: string, y: number): string[] => [
    `\tNodeAttribute: ${id + 1}, "NodeAttribute::", "LimbNode" {\n\t\tTypeFlags: "Skeleton"\n\t}`,
    `\tModel: ${id}, "Model::${name}", "LimbNode" {\n\t\tVersion: 232\n\t\tProperties70:  {\n\t\t\tP: "Lcl Translation", "Lcl Translation", "", "A",0,${y},0\n\t\t}\n\t}`,
  ];
  // Three's ASCII FBX parser reads nesting from the indentation as well as the braces.
  const array = (name: string, values: number[], depth = 2): string =>
    `${'\t'.repeat(depth)}${name}: *${values.length} {\n${'\t'.repeat(depth + 1)}a: ${values.join(',')}\n${'\t'.repeat(depth)}}`;
  const layer = (type: string, body: string[]): string => [`\t\t${type}: 0 {`, '\t\t\tVersion: 101', ...body, '\t\t}'].join('\n');
  return [
    '; FBX 7.4.0 project file',
    'FBXHeaderExtension:  {\n\tFBXHeaderVersion: 1003\n\tFBXVersion: 7400\n}',
    'GlobalSettings:  {\n\tVersion: 1000\n\tProperties70:  {\n\t\tP: "UpAxis", "int", "Integer", "",1\n\t\tP: "UnitScaleFactor", "double", "Number", "",1\n\t}\n}',
    'Objects:  {',
    ...limb(20, 'Hips', 90),
    ...limb(22, 'Head', 80),
    [
      '\tGeometry: 10, "Geometry::body", "Mesh" {',
      array('Vertices', [-20, -90, 0, 20, -90, 0, 0, 90, 0]),
      array('PolygonVertexIndex', [0, 1, -3]),
      layer('LayerElementUV', [
        '\t\t\tMappingInformationType: "ByPolygonVertex"',
        '\t\t\tReferenceInformationType: "Direct"',
        array('UV', [0, 0, 1, 0, 0, 1], 3),
      ]),
      layer('LayerElementMaterial', [
        '\t\t\tMappingInformationType: "AllSame"',
        '\t\t\tReferenceInformationType: "IndexToDirect"',
        array('Materials', [0], 3),
      ]),
      '\t\tLayer: 0 {\n\t\t\tVersion: 100\n\t\t\tLayerElement:  {\n\t\t\t\tType: "LayerElementUV"\n\t\t\t\tTypedIndex: 0\n\t\t\t}\n\t\t\tLayerElement:  {\n\t\t\t\tType: "LayerElementMaterial"\n\t\t\t\tTypedIndex: 0\n\t\t\t}\n\t\t}',
      '\t}',
    ].join('\n'),
    '\tModel: 11, "Model::body", "Mesh" {\n\t\tVersion: 232\n\t\tProperties70:  {\n\t\t}\n\t}',
    '\tMaterial: 12, "Material::Skin", "" {\n\t\tShadingModel: "phong"\n\t\tProperties70:  {\n\t\t\tP: "DiffuseColor", "Color", "", "A",1,1,1\n\t\t}\n\t}',
    '\tTexture: 13, "Texture::skin", "" {\n\t\tFileName: "Textures/skin.png"\n\t\tRelativeFilename: "Textures/skin.png"\n\t}',
    `\tVideo: 14, "Video::skin", "Clip" {\n\t\tType: "Clip"\n\t\tFileName: "Textures/skin.png"\n\t\tRelativeFilename: "Textures/skin.png"${content}\n\t}`,
    '}',
    'Connections:  {',
    ...[
      [21, 20],
      [20, 0],
      [23, 22],
      [22, 20],
      [11, 20],
      [10, 11],
      [12, 11],
      [14, 13],
    ].map(([a, b]) => `\tC: "OO",${a},${b}`),
    '\tC: "OP",13,12, "DiffuseColor"',
    '}',
    '',
  ].join('\n');
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
  it('reads an FBX whose textures are external, embedded or missing, and writes the images it has into the GLB', async () => {
    const png = readFileSync(join(import.meta.dirname, '../../fixtures/import/Textures/colormap.png'));
    mkdirSync(join(dir, 'textured', 'Textures'), { recursive: true });
    const cases = {
      external: join(dir, 'textured', 'external.fbx'),
      embedded: join(dir, 'embedded.fbx'),
      missing: join(dir, 'missing.fbx'),
    };
    writeFileSync(join(dir, 'textured', 'Textures', 'skin.png'), png);
    writeFileSync(cases.external, texturedFbx());
    writeFileSync(cases.embedded, texturedFbx(png));
    writeFileSync(cases.missing, texturedFbx());
    const notes = {
      external: /texture "Textures\/skin\.png" \(map of material "Skin"\) is carried into written GLBs as it is/,
      embedded: /an embedded texture \(map of material "Skin"\) is carried into written GLBs as it is/,
      missing: /^texture "Textures\/skin\.png" is missing: drawn without it$/m,
    };
    for (const [name, file] of Object.entries(cases) as Array<[keyof typeof cases, string]>) {
      // Three's texture loader needs the DOM: without the import layer's own, every case here throws.
      const model = await readModelFile(file);
      expect(model.report.notes.join('\n'), name).toMatch(notes[name]);
      expect(model.bones.map((b) => b.name)).toEqual(['Hips', 'Head']);
      expect(model.report).toMatchObject({ units: 'cm', rigidPieces: ['body'] });
      const out = join(dir, `${name}.glb`);
      await writeModelGlb(out, model, []);
      const textures = (await new NodeIO().read(out)).getRoot().listTextures();
      if (name === 'missing') expect(textures).toHaveLength(0);
      else {
        expect(textures, name).toHaveLength(1);
        expect(textures[0]!.getMimeType()).toBe('image/png');
        expect(Buffer.from(textures[0]!.getImage()!).equals(png), name).toBe(true);
        const material = (await new NodeIO().read(out)).getRoot().listMaterials()[0]!;
        expect(material.getName()).toBe('Skin');
        expect(material.getBaseColorTexture()).not.toBeNull();
      }
      // The GLB is the same model: the triangle skinned to the hips, 1.8 m from feet to head.
      const back = await readModelFile(out);
      expect(back.report.height).toBeCloseTo(1.8, 3);
      expect(back.skinnedMeshes).toHaveLength(1);
    }
  });
});

describe('a real ASCII FBX prop (Kenney, FBX 7.3)', () => {
  const KNIGHT = join(import.meta.dirname, '../../fixtures/import/kenney-castle-knight.fbx');

  it('parses although its exporter indents closing braces one tab too deep, and loads as a prop', async () => {
    // three's ASCII parser reads nesting from the indentation: without the re-indent this file
    // fails with "Cannot read properties of undefined".
    const prop = await readModelFile(KNIGHT, { requireSkeleton: false });
    expect(prop.format).toBe('fbx');
    expect(prop.report).toMatchObject({ skeletonOnly: false, sourceVertices: 180, skinnedVertices: 0 });
    expect(prop.report.unattachedMeshes).toEqual(['knightBlue_8angles', 'head_1', 'left_1', 'right_1']);
    expect(prop.report.height).toBeCloseTo(5.2, 3);
    expect(prop.bones).toHaveLength(0);
    // As a character it is refused with the reason.
    await expect(readModelFile(KNIGHT)).rejects.toThrow(
      /kenney-castle-knight\.fbx: has no skeleton: 4 meshes and no bones or animated nodes; a character needs a skinned mesh$/,
    );
  });
});

/**
 * The import corpus (tests/fixtures/import, see its README) through the command-line code: every
 * real file and every generated trap goes through `retargetCommand`, `checkCommand` or
 * `runLodCommand` as `npm run …` runs them, and through the import layer's own checks.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeIO } from '@gltf-transform/core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkCommand } from '../../../src/anim/node/check-command.ts';
import type { CommandIO } from '../../../src/anim/node/cli.ts';
import { retargetCommand } from '../../../src/anim/node/retarget-command.ts';
import { checkLibraryParity } from '../../../src/anim/parity/parity-check.ts';
import { createRetargetContext } from '../../../src/anim/retarget/retarget-clip.ts';
import { rigFromDef, rigFromObject } from '../../../src/anim/retarget/rig-description.ts';
import { libraryClip, withoutRootMotion } from '../../../src/anim/library/index.ts';
import { retargetClip } from '../../../src/anim/retarget/retarget-clip.ts';
import { MANNEQUIN } from '../../../src/rig/mannequin.ts';
import { parseRig } from '../../../src/rig/load.ts';
import { readModelFile } from '../../../src/rig/node/model-file.ts';
import { runLodCommand } from '../../../src/scatter/lod-command.ts';
import { VectorKeyframeTrack } from 'three';

vi.setConfig({ testTimeout: 60_000 });

const FIXTURES = join(import.meta.dirname, '../../fixtures/import');
const fixture = (name: string): string => join(FIXTURES, name);

function capture(): CommandIO & { text(): string } {
  const lines: string[] = [];
  return { out: (l) => lines.push(l), err: (l) => lines.push(l), text: () => lines.join('\n') };
}

let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-import-'));
  // The real textured GLB with its image embedded (the case that broke three's loader in Node).
  const io = new NodeIO();
  writeFileSync(join(dir, 'kenney-embedded.glb'), await io.writeBinary(await io.read(fixture('kenney-character-male-a.glb'))));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('the import layer in Node (glTF Transform underneath)', () => {
  it('reads a real textured GLB (external image, and embedded), keeps its texture, its clips and its skeleton', async () => {
    for (const file of [fixture('kenney-character-male-a.glb'), join(dir, 'kenney-embedded.glb')]) {
      const model = await readModelFile(file);
      expect(model.bones.map((b) => b.name)).toEqual(['root', 'leg-left', 'leg-right', 'torso', 'arm-left', 'arm-right', 'head']);
      expect(model.clips).toHaveLength(32);
      expect(model.document!.getRoot().listTextures()).toHaveLength(1);
      expect(model.report).toMatchObject({ units: 'm', skeletonOnly: false, sourceVertices: 1259, skinnedVertices: 1259 });
      expect(model.report.height).toBeGreaterThan(0.5);
    }
  });

  it('resolves a .gltf with an external .bin and one with a data: URI buffer to the same rig', async () => {
    const external = await readModelFile(fixture('external/mannequin-external.gltf'));
    const dataUri = await readModelFile(fixture('mannequin-data-uri.gltf'));
    expect(external.bones.length).toBe(64);
    expect(dataUri.bones.map((b) => b.name)).toEqual(external.bones.map((b) => b.name));
    expect(dataUri.report.sourceVertices).toBe(external.report.sourceVertices);
    // A .gltf whose .bin is missing says so.
    mkdirSync(join(dir, 'lonely'));
    copyFileSync(fixture('external/mannequin-external.gltf'), join(dir, 'lonely', 'm.gltf'));
    await expect(readModelFile(join(dir, 'lonely', 'm.gltf'))).rejects.toThrow(
      /m\.gltf: a file it refers to is missing: .*mannequin-external\.bin; keep the \.bin files beside the \.gltf/,
    );
  });

  it('detects centimetres and scales to metres (the same hips as the metre file)', async () => {
    const cm = await readModelFile(fixture('mannequin-cm.glb'));
    const m = await readModelFile(fixture('external/mannequin-external.gltf'));
    expect(cm.report.units).toBe('cm');
    expect(cm.report.metresPerUnit).toBe(0.01);
    expect(cm.report.height).toBeCloseTo(m.report.height, 3);
    const hips = (rig: typeof cm): number =>
      rigFromObject(rig.object, 'x', rig.bones).bones.find((b) => b.name === 'pelvis')!.worldPosition.y;
    expect(hips(cm)).toBeCloseTo(hips(m), 4);
    // Read as metres on purpose, the pair is implausible and the parity check says so.
    const bytes = readFileSync(fixture('mannequin-cm.glb'));
    const raw = await parseRig(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, 'cm.glb', {
      metresPerUnit: 1,
    });
    const context = createRetargetContext(rigFromDef(MANNEQUIN), rigFromObject(raw.object, 'cm-as-m', raw.bones), {
      rootMotion: 'in-place',
    });
    const walk = withoutRootMotion(libraryClip('walk_fwd'));
    const report = checkLibraryParity([walk], [retargetClip(walk, context).clip!], context);
    expect(report.ok).toBe(false);
    expect(report.failures.join('\n')).toMatch(/implausible vertical ratio 100 .*check the units/);
    expect(report.failures.join('\n')).toMatch(/implausible target hip height 96\.0 m/);
  });

  it('reads real CMU mocap: a BVH in the CMU database unit and a binary FBX, both skeleton-only', async () => {
    const bvh = await readModelFile(fixture('cmu-131-01-walk.bvh'));
    // 23 units from toe to head joint: centimetres would make a 23 cm person; the CMU unit is 1/0.45 inch.
    expect(bvh.report).toMatchObject({ skeletonOnly: true, units: 'cmu', upAxis: 'y' });
    expect(bvh.report.metresPerUnit).toBeCloseTo(0.0254 / 0.45, 6);
    expect(bvh.report.height).toBeGreaterThan(1.1);
    expect(bvh.report.height).toBeLessThan(1.6);
    expect(bvh.bones).toHaveLength(31);
    expect(bvh.bones.map((b) => b.name)).toEqual(
      expect.arrayContaining(['Hips', 'LeftHip', 'LeftKnee', 'LeftAnkle', 'RightWrist', 'Head']),
    );
    expect(bvh.clips.map((c) => c.name)).toEqual(['cmu-131-01-walk']);
    expect(bvh.clips[0]!.duration).toBeCloseTo(359 / 120, 3);
    // The same clip in inches (Biovision's unit: every length ÷ 0.45) reads as inches: the same person.
    const [hierarchy, motion] = readFileSync(fixture('cmu-131-01-walk.bvh'), 'utf8').split('MOTION');
    const inches = (v: string): string => (Number(v) / 0.45).toFixed(5);
    const frames = motion!
      .split('\n')
      .map((line, i) =>
        i < 3 || !line.trim()
          ? line
          : line.replace(/^\s*(\S+)\s+(\S+)\s+(\S+)/, (_, x: string, y: string, z: string) => [x, y, z].map(inches).join(' ')),
      );
    const offsets = hierarchy!.replace(
      /OFFSET\s+(\S+)\s+(\S+)\s+(\S+)/g,
      (_, x: string, y: string, z: string) => `OFFSET ${[x, y, z].map(inches).join(' ')}`,
    );
    writeFileSync(join(dir, 'walk-inches.bvh'), `${offsets}MOTION${frames.join('\n')}`);
    const inch = await readModelFile(join(dir, 'walk-inches.bvh'));
    expect(inch.report).toMatchObject({ units: 'in', metresPerUnit: 0.0254 });
    expect(inch.report.height).toBeCloseTo(bvh.report.height, 4);
    const fbx = await readModelFile(fixture('cmu-07-01-walk.fbx'));
    expect(fbx.format).toBe('fbx');
    // Its root node `07_01` scales bones in CMU units by 100 (2,550 units overall, which would read
    // as millimetres: 2.55 m): judged inside that scale, the skeleton is 25.5 CMU units, toe to head
    // joint 1.44 m, a person of about 1.7 m, like the BVH of the same database.
    expect(fbx.report).toMatchObject({ skeletonOnly: true, units: 'cmu', upAxis: 'y', rootScale: 100 });
    expect(fbx.report.metresPerUnit).toBeCloseTo(0.0254 / 0.45 / 100, 9);
    expect(fbx.report.height).toBeGreaterThan(1.3);
    expect(fbx.report.height).toBeLessThan(1.6);
    expect(fbx.report.notes.join('\n')).toMatch(
      /skeleton authored in CMU mocap units .* under node "07_01", which scales it by 100; .*2550 units overall would read as millimetres/,
    );
    expect(fbx.bones).toHaveLength(38);
    expect(fbx.bones.map((b) => b.name)).toEqual(
      expect.arrayContaining(['Hips', 'LeftUpLeg', 'LeftLeg', 'LeftFoot', 'RightForeArm', 'Head']),
    );
    expect(fbx.clips).toHaveLength(1);
    expect(fbx.clips[0]!.duration).toBeCloseTo(2.633, 2);
  });

  it('turns rigid parts under bones into skinned pieces, names morph targets, and measures the whole character', async () => {
    const robot = await readModelFile(fixture('robot-rigid.glb'));
    expect(robot.report.rigidPieces).toHaveLength(13);
    expect(robot.report.morphTargets).toEqual(['visor_open']);
    expect(robot.report.skinnedVertices).toBe(robot.report.sourceVertices);
    // Two skinned hands, the head on its own (it has a morph target), the other 12 parts merged into
    // one piece (one material): 4 draw calls in a crowd instead of 15.
    expect(robot.skinnedMeshes).toHaveLength(4);
    expect(robot.report.notes.join('\n')).toMatch(/13 rigid part\(s\) under bones became 2 skinned piece\(s\)/);
    // Height from the whole robot (feet to head), not from the two hands.
    expect(robot.report.height).toBeGreaterThan(1.6);
    expect(robot.report.height).toBeLessThan(2);
    // Rigid pieces follow their bone: turn the head and the head piece's vertices move with it.
    const head = robot.skinnedMeshes.find((m) => m.name === 'Head_part')!;
    const before = head.geometry.getAttribute('position').getY(0);
    expect(head.geometry.getAttribute('skinWeight').getX(0)).toBe(1);
    expect(head.skeleton.bones[head.geometry.getAttribute('skinIndex').getX(0)]!.name).toBe('mixamorigHead');
    expect(before).toBeGreaterThan(1.5);
    // Merged parts keep each vertex on its own bone: the merged piece binds to every limb bone.
    const merged = robot.skinnedMeshes.find((m) => m.name.startsWith('rigid parts'))!;
    const skinIndex = merged.geometry.getAttribute('skinIndex');
    const used = new Set<string>();
    for (let i = 0; i < skinIndex.count; i++) used.add(merged.skeleton.bones[skinIndex.getX(i)]!.name);
    expect(used.size).toBe(12);
    expect(used.has('mixamorigLeftUpLeg') && used.has('mixamorigRightForeArm') && used.has('mixamorigHips')).toBe(true);
  });

  it('reads skeleton-only files (bones-only glTF, BVH) as clip sources and names every refusal', async () => {
    const glb = await readModelFile(fixture('skeleton-only.glb'));
    expect(glb.report.skeletonOnly).toBe(true);
    // The animated nodes became bones (the fingers the walk leaves still are not).
    expect(glb.bones.length).toBeGreaterThan(20);
    expect(glb.bones.map((b) => b.name)).toEqual(
      expect.arrayContaining(['pelvis', 'thigh_l', 'calf_l', 'foot_l', 'upperarm_r', 'lowerarm_r']),
    );
    expect(glb.clips.map((c) => c.name)).toEqual(['walk_fwd']);
    const bvh = await readModelFile(fixture('walk-cm.bvh'));
    expect(bvh.report).toMatchObject({ skeletonOnly: true, units: 'cm' });
    expect(bvh.bones.some((b) => b.name === 'ENDSITE')).toBe(false);
    const fbx = await readModelFile(fixture('mocap-walk.fbx'));
    expect(fbx.format).toBe('fbx');
    expect(fbx.report).toMatchObject({ skeletonOnly: true, units: 'cm' });
    expect(fbx.bones.map((b) => b.name)).toEqual(
      expect.arrayContaining(['Hips', 'LeftUpLeg', 'LeftLeg', 'LeftFoot', 'RightForeArm', 'Head']),
    );
    expect(fbx.clips.map((c) => c.name)).toEqual(['walk_fwd']);
    await expect(readModelFile(join(dir, 'nope.glb'))).rejects.toThrow(/nope\.glb: no such file/);
    writeFileSync(join(dir, 'page.glb'), '<!doctype html><title>404</title>');
    await expect(readModelFile(join(dir, 'page.glb'))).rejects.toThrow(/page\.glb: it is an HTML page, not a model/);
    // Draco needs decoder files a page would serve: refused by name, not with a loader's internals.
    const draco = {
      asset: { version: '2.0' },
      extensionsUsed: ['KHR_draco_mesh_compression'],
      extensionsRequired: ['KHR_draco_mesh_compression'],
      scenes: [{ nodes: [0] }],
      scene: 0,
      nodes: [{ mesh: 0 }],
      meshes: [
        {
          primitives: [
            { attributes: { POSITION: 0 }, extensions: { KHR_draco_mesh_compression: { bufferView: 0, attributes: { POSITION: 0 } } } },
          ],
        },
      ],
      accessors: [{ componentType: 5126, count: 3, type: 'VEC3' }],
      bufferViews: [{ buffer: 0, byteLength: 4 }],
      buffers: [{ byteLength: 4, uri: 'data:application/octet-stream;base64,AAAAAA==' }],
    };
    await expect(parseRig(new TextEncoder().encode(JSON.stringify(draco)).buffer as ArrayBuffer, 'squashed.gltf')).rejects.toThrow(
      /squashed\.gltf: it is not a glTF\/GLB file \(it uses Draco mesh compression/,
    );
    writeFileSync(join(dir, 'notes.bvh'), 'these are notes');
    await expect(readModelFile(join(dir, 'notes.bvh'))).rejects.toThrow(
      /notes\.bvh: it is not a BVH file \(it starts with "these are no"\)/,
    );
  });
});

describe('npm run retarget / retarget:check / lod on the corpus', () => {
  it('retargets BVH mocap (cm) onto the rigid robot as `retarget SRC TARGET -o OUT.glb`, printing the map', async () => {
    const io = capture();
    const out = join(dir, 'robot-walk.glb');
    expect(await retargetCommand([fixture('walk-cm.bvh'), fixture('robot-rigid.glb'), '-o', out], io), io.text()).toBe(0);
    expect(io.text()).toMatch(/authored in centimetres/);
    expect(io.text()).toMatch(/leftUpperLeg\s+LeftUpLeg → mixamorig:LeftUpLeg/);
    expect(io.text()).toMatch(/wrote .*robot-walk\.glb \(robot with 1 clips/);
    const written = await readModelFile(out);
    expect(written.clips.map((c) => c.name)).toEqual(['walk-cm']);
    expect(written.report.rigidPieces).toHaveLength(13);
  });

  it('writes a textured target with its texture intact, and fails loudly on a rig whose core bones cannot map', async () => {
    const io = capture();
    const out = join(dir, 'kenney-out.glb');
    const map = join(dir, 'kenney-map.json');
    // The Kenney rig has no knees, elbows or feet: with a map file for what it has, the clips are
    // written, but the command says the core body is not mapped and exits 1.
    writeFileSync(
      map,
      JSON.stringify({
        hips: 'root',
        spine: 'torso',
        head: 'head',
        leftUpperArm: 'arm-left',
        rightUpperArm: 'arm-right',
        leftUpperLeg: 'leg-left',
        rightUpperLeg: 'leg-right',
      }),
    );
    const code = await retargetCommand(
      [fixture('skeleton-only.glb'), join(dir, 'kenney-embedded.glb'), '--target-map', map, '-o', out],
      io,
    );
    expect(code, io.text()).toBe(1);
    expect(io.text()).toMatch(/✗ target rig .* \(custom map\) has no leftLowerArm, leftHand, leftLowerLeg, leftFoot/);
    const written = await new NodeIO().read(out);
    expect(written.getRoot().listTextures()).toHaveLength(1);
    expect(written.getRoot().listTextures()[0]!.getImage()!.byteLength).toBe(
      readFileSync(join(FIXTURES, 'Textures/colormap.png')).byteLength,
    );
    expect(
      written
        .getRoot()
        .listAnimations()
        .map((a) => a.getName()),
    ).toEqual(['walk_fwd']);
    // Without a map the rig cannot be retargeted at all: exit 2, the reason named.
    const bare = capture();
    expect(await retargetCommand([fixture('skeleton-only.glb'), fixture('kenney-character-male-a.glb')], bare)).toBe(2);
    expect(bare.text()).toMatch(/has no hips bone/);
  });

  it('checks skeleton-only FBX mocap (cm) against the CC4 character: the FBX source follows through', async () => {
    const io = capture();
    expect(await checkCommand([fixture('mocap-walk.fbx'), 'builtin:cc4'], io), io.text()).toBe(0);
    expect(io.text()).toMatch(/authored in centimetres/);
    expect(io.text()).toMatch(/leftLowerLeg\s+LeftLeg → CC_Base_L_Calf/);
    expect(io.text()).toMatch(/✓ walk_fwd/);
    expect(io.text()).toMatch(/PASS/);
  });

  it('retargets real CMU BVH mocap onto the CC4 character: CMU units scaled, every chain mapped, PASS, clips written', async () => {
    const io = capture();
    const out = join(dir, 'cc4-cmu-walk.glb');
    expect(await checkCommand([fixture('cmu-131-01-walk.bvh'), 'builtin:cc4', '--out', out], io), io.text()).toBe(0);
    expect(io.text()).toMatch(/authored in CMU mocap units \(1\/0\.45 inch\) \(23 units tall\): scaled by 0\.05644/);
    expect(io.text()).toMatch(/cmu-131-01-walk\.bvh \(auto map\) → target builtin:cc4 \(cc4 map\): 25 bones mapped/);
    for (const line of [
      /leftUpperLeg\s+LeftHip → CC_Base_L_Thigh/,
      /leftLowerLeg\s+LeftKnee → CC_Base_L_Calf/,
      /rightFoot\s+RightAnkle → CC_Base_R_Foot/,
      /leftLowerArm\s+LeftElbow → CC_Base_L_Forearm/,
      /rightHand\s+RightWrist → CC_Base_R_Hand/,
      /spine\s+lowerback → CC_Base_Waist/,
    ])
      expect(io.text()).toMatch(line);
    expect(io.text()).toMatch(/✓ cmu-131-01-walk\s+180 /);
    expect(io.text()).not.toMatch(/implausible/);
    expect(io.text()).toMatch(/\nPASS$/);
    const written = await readModelFile(out);
    expect(written.clips.map((c) => c.name)).toEqual(['cmu-131-01-walk']);
    expect(written.clips[0]!.tracks.length).toBeGreaterThan(20);
    expect(written.clips[0]!.duration).toBeCloseTo(359 / 120, 2);
  });

  it('checks a real binary FBX (CMU mocap) against the mannequin: skeleton mapped, CMU unit detected inside the root node scale, PASS', async () => {
    const io = capture();
    expect(await checkCommand([fixture('cmu-07-01-walk.fbx'), 'builtin:mannequin'], io), io.text()).toBe(0);
    expect(io.text()).toMatch(/skeleton authored in CMU mocap units .*under node "07_01", which scales it by 100.*: scaled by 0\.0005644/);
    expect(io.text()).toMatch(/skeleton only \(38 bones, 1 clip\(s\)\)/);
    expect(io.text()).toMatch(/cmu-07-01-walk\.fbx \(auto map\) → target builtin:mannequin \(mannequin map\): 27 bones mapped/);
    expect(io.text()).toMatch(/leftLowerLeg\s+LeftLeg → calf_l/);
    expect(io.text()).toMatch(/rightUpperArm\s+RightArm → upperarm_r/);
    expect(io.text()).toMatch(/spine\s+LowerBack → spine_01/);
    expect(io.text()).toMatch(/\nPASS$/);
  });

  it('maps both legs of the IK-feet rig and passes the parity check against the mannequin', async () => {
    const io = capture();
    const code = await checkCommand(
      ['--target', fixture('ik-feet.glb'), '--clip', 'walk_fwd', '--clip', 'sit_ground', '--clip', 'roll_forward'],
      io,
    );
    expect(code, io.text()).toBe(0);
    expect(io.text()).toMatch(/left foot "FootL" sits outside the leg chain .* the chain's foot is "HeelL"/);
    expect(io.text()).toMatch(/leftLowerLeg\s+calf_l → Shin\.L/);
    expect(io.text()).toMatch(/PASS/);
  });

  it('fails the check when a leg is unmapped, and when the result slides its feet', async () => {
    const map = join(dir, 'no-legs.json');
    writeFileSync(
      map,
      JSON.stringify({
        hips: 'Pelvis',
        spine: 'spine1',
        head: 'Head',
        leftUpperArm: 'UpperArmL',
        leftLowerArm: 'ForearmL',
        leftHand: 'HandL',
        rightUpperArm: 'UpperArmR',
        rightLowerArm: 'ForearmR',
        rightHand: 'HandR',
      }),
    );
    const io = capture();
    expect(await checkCommand(['--target', fixture('ik-feet.glb'), '--map', map, '--clip', 'walk_fwd'], io), io.text()).toBe(1);
    expect(io.text()).toMatch(/FAIL: .*1 rig\(s\) with unmapped core bones/);
    expect(io.text()).toMatch(/has no leftUpperLeg, leftLowerLeg, leftFoot, rightUpperLeg, rightLowerLeg, rightFoot/);
    // A broken variant of a good result: the hips wander sideways, so planted feet slide.
    const context = createRetargetContext(rigFromDef(MANNEQUIN), rigFromDef(MANNEQUIN), { rootMotion: 'in-place' });
    const walk = withoutRootMotion(libraryClip('walk_fwd'));
    const good = retargetClip(walk, context).clip!;
    expect(checkLibraryParity([walk], [good], context).ok).toBe(true);
    const sliding = good.clone();
    const hips = sliding.tracks.find((t) => t.name === 'pelvis.position') as VectorKeyframeTrack;
    hips.values = hips.values.map((v, i) =>
      i % 3 === 0 ? v + 0.1 * Math.sin((hips.times[Math.floor(i / 3)]! / good.duration) * Math.PI * 4) : v,
    );
    const report = checkLibraryParity([walk], [sliding], context);
    expect(report.ok).toBe(false);
    expect(report.clips[0]!.footSlide.value).toBeGreaterThan(0.02);
    expect(report.failures.join('\n')).toMatch(/foot_[lr] slides .* more than the scaled source while planted/);
  });

  it('fails a real prop whose low LOD collapses (Kenney’s hedge: 2 triangles; an arrow piece: none), naming piece and level', async () => {
    const hedge = capture();
    expect(await runLodCommand([fixture('kenney-platformer-hedge.glb')], hedge)).toBe(1);
    expect(hedge.text()).toMatch(/hedge\(Clone\)\s+40\s+20\s+12\s+2\s.*← COLLAPSES/);
    expect(hedge.text()).toMatch(
      /^lod: kenney-platformer-hedge\.glb: LOD2 of hedge\(Clone\) keeps 2 triangles of 20 \(error 0\.1\d\d of its size\): the piece collapses to a sliver at that distance; a level needs at least 4$/m,
    );
    const arrow = capture();
    expect(await runLodCommand([fixture('kenney-platformer-arrow.glb'), '--json'], arrow)).toBe(1);
    expect(arrow.text()).toMatch(/LOD2 of arrow\(Clone\) keeps no triangle of 24 .*: the piece vanishes at that distance/);
    const json = JSON.parse(arrow.text().slice(0, arrow.text().lastIndexOf('}') + 1)) as {
      ok: boolean;
      pieces: Array<{ degenerate: boolean[] }>;
    };
    expect(json.ok).toBe(false);
    expect(json.pieces.map((p) => p.degenerate)).toEqual([
      [false, false, true],
      [false, false, true],
    ]);
  });

  it('bakes LOD levels of a .gltf with an external .bin, a data: URI buffer, and a textured GLB', async () => {
    for (const file of ['external/mannequin-external.gltf', 'mannequin-data-uri.gltf', 'kenney-character-male-a.glb']) {
      const io = capture();
      expect(await runLodCommand([fixture(file), '--json'], io), `${file}\n${io.text()}`).toBe(0);
      const result = JSON.parse(io.text()) as { pieces: Array<{ triangles: number[] }> };
      expect(result.pieces.length).toBeGreaterThan(0);
    }
    const io = capture();
    expect(await runLodCommand([join(dir, 'lonely', 'm.gltf')], io)).toBe(2);
    expect(io.text()).toMatch(
      /^lod: m\.gltf: a file it refers to is missing: .*mannequin-external\.bin; keep the \.bin files beside the \.gltf \(or use a \.glb\)$/,
    );
  });
});

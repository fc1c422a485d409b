import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Bone,
  BufferGeometry,
  Float32BufferAttribute,
  Group,
  MeshBasicMaterial,
  Skeleton,
  SkinnedMesh,
  Uint16BufferAttribute,
} from 'three';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { checkCommand } from '../../../src/anim/node/check-command.ts';
import type { CommandIO } from '../../../src/anim/node/cli.ts';
import { builtinRig, exportRigGlb as exportGlb } from '../../../src/anim/node/rig-files.ts';
import { libraryClip } from '../../../src/anim/library/index.ts';
import { createHumanoid } from '../../../src/rig/humanoid.ts';
import { retargetCommand } from '../../../src/anim/node/retarget-command.ts';
import { parseRig } from '../../../src/rig/load.ts';
import type { SkeletonDef } from '../../../src/rig/skeleton-def.ts';
import { buildSkeleton } from '../../../src/rig/skeleton-def.ts';
import { deriveRig, mixamoName } from './rig-fixtures.ts';

vi.setConfig({ testTimeout: 60_000 });

/** Captures a command's output. */
function capture(): CommandIO & { text(): string } {
  const lines: string[] = [];
  return { out: (l) => lines.push(l), err: (l) => lines.push(l), text: () => lines.join('\n') };
}

/** A minimal skinned model of a skeleton definition, as a file from another tool would carry it. */
function skinnedModel(def: SkeletonDef, rawNames?: Map<string, string>): Group {
  const built = buildSkeleton(def);
  // Names a file carries that three.js objects would not (e.g. "mixamorig:Hips"), set after building.
  if (rawNames) for (const bone of built.bones) bone.name = rawNames.get(bone.name) ?? bone.name;
  const geometry = new BufferGeometry();
  geometry.setAttribute('position', new Float32BufferAttribute([0, 0, 0, 0.1, 0, 0, 0, 0.1, 0], 3));
  geometry.setAttribute('skinIndex', new Uint16BufferAttribute(new Array(12).fill(0), 4));
  geometry.setAttribute('skinWeight', new Float32BufferAttribute([1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0], 4));
  const mesh = new SkinnedMesh(geometry, new MeshBasicMaterial());
  const group = new Group();
  group.name = def.name;
  group.add(built.root, mesh);
  mesh.bind(new Skeleton(built.bones as Bone[]));
  return group;
}

const CLIPS = ['walk_fwd', 'sword_slash_1', 'swim_tread', 'knockback'];
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cairn-anim-cli-'));
  // The mannequin with four library clips, as an exported library file would carry them.
  const mannequin = createHumanoid({ detail: 'low' });
  mannequin.object.name = 'cairn-mannequin';
  writeFileSync(
    join(dir, 'library.glb'),
    Buffer.from(
      await exportGlb(
        mannequin.object,
        CLIPS.map((name) => libraryClip(name)),
      ),
    ),
  );
  const cc4 = builtinRig('builtin:cc4');
  writeFileSync(join(dir, 'cc4.glb'), Buffer.from(await exportGlb(cc4.object, [])));
  // A Mixamo character as Mixamo names it in the file ("mixamorig:Hips"); the loader sanitizes.
  const mixamo = deriveRig('mixamo-character', (b) => mixamoName(b, 'mixamo_'));
  const raw = new Map(mixamo.bones.map((b) => [b.name, b.name.replace(/^mixamo_/, 'mixamorig:')]));
  // A file with a mistake: two bones both called "mixamorig:LeftHandPinky2".
  raw.set('mixamo_LeftHandPinky3', 'mixamorig:LeftHandPinky2');
  writeFileSync(join(dir, 'mixamo.glb'), Buffer.from(await exportGlb(skinnedModel(mixamo, raw), [])));
  writeFileSync(join(dir, 'broken.glb'), 'this is not a model');
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npm run retarget:check (any glTF/GLB rigs)', () => {
  it('passes the exported built-in rigs, writes a baseline, then holds a later run to it', async () => {
    const io = capture();
    const baseline = join(dir, 'baseline.json');
    const code = await checkCommand(
      [
        '--source',
        join(dir, 'library.glb'),
        '--target',
        join(dir, 'cc4.glb'),
        '--baseline',
        baseline,
        '--write-baseline',
        '--report',
        join(dir, 'report.json'),
      ],
      io,
    );
    expect(code, io.text()).toBe(0);
    expect(io.text()).toMatch(/library\.glb \(mannequin map\) → target .*cc4\.glb \(cc4 map\): 61 bones mapped/);
    expect(io.text()).toMatch(/✓ walk_fwd\s+67\s/);
    expect(io.text()).toMatch(/PASS/);
    const written = JSON.parse(readFileSync(baseline, 'utf8'));
    expect(Object.keys(written.clips).sort()).toEqual([...CLIPS].sort());
    const report = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'));
    expect(report.clips).toHaveLength(4);

    // The same figures again: no regression. A clip the baseline knows but the run lacks: exit 1.
    const again = capture();
    expect(
      await checkCommand(['--source', join(dir, 'library.glb'), '--target', join(dir, 'cc4.glb'), '--baseline', baseline], again),
    ).toBe(0);
    expect(again.text()).toMatch(/no regressions/);
    written.clips.moonwalk = { positionDrift: 0, rotationDriftDeg: 0, pelvisVerticalDrift: 0 };
    writeFileSync(baseline, JSON.stringify(written));
    const worse = capture();
    expect(
      await checkCommand(['--source', join(dir, 'library.glb'), '--target', join(dir, 'cc4.glb'), '--baseline', baseline], worse),
    ).toBe(1);
    expect(worse.text()).toMatch(/✗ moonwalk: in the baseline but not checked/);
    expect(worse.text()).toMatch(/FAIL: 0 bound failure\(s\), 1 regression\(s\)/);
  });

  it('names an unreadable file and exits 2', async () => {
    const io = capture();
    expect(await checkCommand(['--source', join(dir, 'library.glb'), '--target', join(dir, 'broken.glb')], io)).toBe(2);
    expect(io.text()).toMatch(/broken\.glb: it is not a glTF\/GLB file \(it starts with "this is not "\)/);
    const missing = capture();
    expect(await checkCommand(['--source', join(dir, 'nope.glb')], missing)).toBe(2);
    expect(missing.text()).toMatch(/nope\.glb: no such file/);
    const option = capture();
    expect(await checkCommand(['--sorce', 'x'], option)).toBe(2);
    expect(option.text()).toMatch(/unknown option --sorce/);
  });
});

describe('npm run retarget (library onto another rig, written to a GLB)', () => {
  it('retargets onto a Mixamo character from files, reports the bad clip files, and writes a playable GLB', async () => {
    const io = capture();
    const out = join(dir, 'out.glb');
    const code = await retargetCommand(
      [
        '--source',
        join(dir, 'library.glb'),
        '--clips',
        join(dir, 'broken.glb'),
        '--clips',
        join(dir, 'missing.glb'),
        '--target',
        join(dir, 'mixamo.glb'),
        '--out',
        out,
      ],
      io,
    );
    // Some input was bad (exit 1), yet every good clip retargeted and was written.
    expect(code, io.text()).toBe(1);
    expect(io.text()).toMatch(/✗ .*broken\.glb: it is not a glTF\/GLB file/);
    expect(io.text()).toMatch(/✗ .*missing\.glb: no such file/);
    expect(io.text()).toMatch(/target .*mixamo\.glb: \d+ bones \(mixamo map\)/);
    // The duplicated names are reported and left out; everything else still retargets.
    expect(io.text()).toMatch(
      /! target rig "mixamo-character": duplicate bone name "mixamorig:LeftHandPinky2" \(bones #\d+ and #\d+\); neither is mapped/,
    );
    expect(io.text()).toMatch(/4\/4 clips retargeted/);
    const bytes = readFileSync(out);
    const rig = await parseRig(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer, 'out.glb');
    expect(rig.clips.map((c) => c.name).sort()).toEqual([...CLIPS].sort());
    const boneNames = new Set(rig.bones.map((b) => b.name));
    for (const clip of rig.clips) for (const track of clip.tracks) expect(boneNames.has(track.name.split('.')[0]!), track.name).toBe(true);
    expect(rig.clips[0]!.tracks.some((t) => t.name === 'mixamorigHips.position')).toBe(true);
    expect(rig.clips[0]!.tracks.some((t) => t.name.startsWith('mixamorigLeftHandPinky2'))).toBe(false);
    expect(rig.clips[0]!.tracks.some((t) => t.name === 'mixamorigLeftHandIndex2.quaternion')).toBe(true);
  });

  it('retargets only the clips asked for, and says which asked-for clip does not exist', async () => {
    const io = capture();
    expect(
      await retargetCommand(
        ['--source', join(dir, 'library.glb'), '--target', join(dir, 'cc4.glb'), '--clip', 'walk_fwd', '--clip', 'moonwalk'],
        io,
      ),
    ).toBe(1);
    expect(io.text()).toMatch(/clip "moonwalk" is not in the source library/);
    expect(io.text()).toMatch(/1\/1 clips retargeted/);
  });
});

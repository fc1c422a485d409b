// Run by tests/consumer/consumer.test.ts as `node --input-type=module -e "<this file>"` in a folder
// where the packed tarball is installed: plain Node, no loader, no TypeScript. Prints one JSON line.
import { readFileSync } from 'node:fs';

const out = {};

// Scatter placement, headless (docs/scatter.md): a stroke, its recording, a replay.
const { ScatterLayer } = await import('cairn-world/scatter');
const { generateTerrain } = await import('cairn-world/world');
const ground = generateTerrain({ seed: 1 });
const layer = new ScatterLayer({ ground, seed: 7 });
await layer.choosePreset('lake-shore');
layer.paint(-150, 20, 10);
const before = JSON.stringify(layer.snapshot().map((p) => [p.propId, p.x, p.z]));
await layer.replay(layer.recording());
out.scatter = { placed: layer.snapshot().length, replaySame: before === JSON.stringify(layer.snapshot().map((p) => [p.propId, p.x, p.z])) };
layer.dispose();

// The import layer: BVH text and a GLB file.
const { parseRig } = await import('cairn-world/rig');
const bvh = [
  'HIERARCHY',
  'ROOT Hips',
  '{',
  '  OFFSET 0 95 0',
  '  CHANNELS 6 Xposition Yposition Zposition Zrotation Xrotation Yrotation',
  '  JOINT Spine',
  '  {',
  '    OFFSET 0 12 0',
  '    CHANNELS 3 Zrotation Xrotation Yrotation',
  '    End Site',
  '    {',
  '      OFFSET 0 60 0',
  '    }',
  '  }',
  '}',
  'MOTION',
  'Frames: 2',
  'Frame Time: 0.0333333',
  '0 95 0 0 0 0 0 0 0',
  '0 95 2 0 0 0 0 10 0',
].join('\n');
const take = await parseRig(new TextEncoder().encode(bvh).buffer, 'take.bvh');
const glbBytes = readFileSync('skeleton-only.glb');
const glb = await parseRig(glbBytes.buffer.slice(glbBytes.byteOffset, glbBytes.byteOffset + glbBytes.byteLength), 'skeleton-only.glb');
out.import = {
  bvh: { format: take.format, units: take.report.units, bones: take.bones.length },
  glb: { format: glb.format, bones: glb.bones.length },
};

// Retargeting and the parity check (docs/anim.md).
const {
  checkLibraryParity,
  createAnimationLibrary,
  createCc4Character,
  createRetargetContext,
  retargetLibrary,
  rigFromDef,
  rigFromObject,
} = await import('cairn-world/anim');
const { MANNEQUIN } = await import('cairn-world/rig');
const character = createCc4Character({ detail: 'low' });
const context = createRetargetContext(rigFromDef(MANNEQUIN), rigFromObject(character.object, 'cc4', character.bones), {
  rootMotion: 'hips',
});
const sources = createAnimationLibrary().slice(0, 2);
const { clips, reports } = retargetLibrary(sources, context);
const parity = checkLibraryParity(sources, clips, context);
out.retarget = { clips: clips.length, ok: reports.every((r) => r.ok), parityOk: parity.ok, parityClips: parity.clips.length };
character.dispose();

// Audio: the module loads; planning and loudness are pure. Rendering needs an OfflineAudioContext.
const audio = await import('cairn-world/audio');
const strike = audio.getRecipe('strike');
const noise = Float32Array.from({ length: 48000 }, (_, i) => Math.sin(i / 10) * 0.25);
const loudness = audio.measureLoudness([noise, noise], 48000);
out.audio = {
  recipes: Object.keys(audio.RECIPES).length,
  strikeLayers: strike.plan(strike.defaults, { vary: (v) => v, range: (a) => a, chord: audio.CAIRN_PROGRESSION.chords[0] }).length,
  lufs: Math.round(loudness.integrated * 10) / 10,
  renders: typeof audio.renderRecipe === 'function',
};

// Every other entry loads in Node too.
for (const name of ['core', 'avatar', 'crowd', 'net', 'voice', 'assets', 'ambient']) await import(`cairn-world/${name}`);
out.entries = true;
console.log(JSON.stringify(out));

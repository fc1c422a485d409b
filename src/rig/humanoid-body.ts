import type { BufferGeometry } from 'three';
import {
  BODY_DETAIL,
  lerp3,
  profile,
  RigLookup as BodyLookup,
  toGeometry,
  type BodyDetail,
  type BodyPalette,
  type BodyPiece,
  type HumanoidDetail,
} from './body-kit.ts';
import { MANNEQUIN, FINGERTIP_LENGTH } from './mannequin.ts';
import type { SkeletonDef } from './skeleton-def.ts';
import { MeshAccumulator, addEllipsoid, addTube, type TubeBreakpoint, type Vec3 } from './tube.ts';
import { addFaceMorphs, HEAD_CENTER, HEAD_RADII } from './face-morphs.ts';

/** Colours of the mannequin. */
export type HumanoidPalette = BodyPalette;

/** The mannequin's default colours: teal shirt, navy trousers, brown shoes and hair. */
export const DEFAULT_PALETTE: HumanoidPalette = {
  skin: [0.8, 0.56, 0.42],
  hair: [0.16, 0.09, 0.05],
  shirt: [0.12, 0.42, 0.5],
  pants: [0.11, 0.13, 0.24],
  shoes: [0.18, 0.11, 0.07],
  eyes: [0.04, 0.04, 0.05],
};

/**
 * Builds the mannequin's three geometry pieces — body (skin), head (with facial morph targets) and
 * clothing (shirt, trousers, shoes) — skinned to the mannequin's bones with smooth weights
 * (≤ 4 influences, here ≤ 2, per vertex) and vertex colours from the palette.
 */
export function buildHumanoidPieces(
  palette: HumanoidPalette = DEFAULT_PALETTE,
  detail: HumanoidDetail = 'high',
  def: SkeletonDef = MANNEQUIN,
): BodyPiece[] {
  const rig = new BodyLookup(def, 'humanoid body');
  const d = BODY_DETAIL[detail];
  return [
    { name: 'body', geometry: toGeometry(buildBody(rig, palette, d)) },
    { name: 'head', geometry: buildHead(rig, palette, d) },
    { name: 'clothing', geometry: toGeometry(buildClothing(rig, palette, d)) },
  ];
}

type Detail = BodyDetail;
type RigLookup = BodyLookup;

const tOf = (y: number, y0: number, y1: number): number => (y - y0) / (y1 - y0);

const TORSO_BOTTOM = 0.86;
const TORSO_TOP = 1.5;
/** Torso width (X) and depth (Z) radii from the hips to the neck. */
const TORSO_STOPS: Array<[number, number, number]> = [
  [0, 0.15, 0.1],
  [tOf(0.98, TORSO_BOTTOM, TORSO_TOP), 0.165, 0.11],
  [tOf(1.1, TORSO_BOTTOM, TORSO_TOP), 0.14, 0.098],
  [tOf(1.26, TORSO_BOTTOM, TORSO_TOP), 0.165, 0.112],
  [tOf(1.38, TORSO_BOTTOM, TORSO_TOP), 0.18, 0.11],
  [tOf(1.46, TORSO_BOTTOM, TORSO_TOP), 0.15, 0.095],
  [1, 0.07, 0.06],
];

function torsoWeights(rig: RigLookup): TubeBreakpoint[] {
  const t = (bone: string, lift = 0): [string, number] => [bone, tOf(rig.head(bone)[1] + lift, TORSO_BOTTOM, TORSO_TOP)];
  return rig.weights(
    t('pelvis'),
    t('spine_01', 0.03),
    t('spine_02', 0.04),
    t('spine_03', 0.04),
    t('spine_04', 0.04),
    t('spine_05', 0.03),
    t('neck_01', 0.03),
  );
}

function buildBody(rig: RigLookup, palette: HumanoidPalette, d: Detail): MeshAccumulator {
  const out = new MeshAccumulator();
  const skin = palette.skin;
  // Torso and neck.
  addTube(out, {
    from: [0, TORSO_BOTTOM, -0.005],
    to: [0, TORSO_TOP, 0],
    radius: profile(TORSO_STOPS),
    rings: d.rings + 4,
    sides: d.sides + 4,
    capStart: true,
    weights: torsoWeights(rig),
    color: skin,
  });
  addTube(out, {
    from: [0, 1.46, 0.0],
    // Into the back half of the skull: the jaw is in front of the neck, as on a person.
    to: [0, 1.68, 0.0],
    radius: profile([
      [0, 0.058, 0.055],
      [1, 0.048, 0.05],
    ]),
    rings: 3,
    sides: d.sides,
    weights: rig.weights(['spine_05', -0.2], ['neck_01', 0.25], ['neck_02', 0.6], ['head', 0.95]),
    color: skin,
  });
  for (const side of ['l', 'r'] as const) {
    addArm(out, rig, side, skin, d, 0);
    addHand(out, rig, side, skin, d);
    addLeg(out, rig, side, skin, d, 0, 1);
  }
  return out;
}

function addArm(out: MeshAccumulator, rig: RigLookup, side: 'l' | 'r', color: Vec3, d: Detail, inflate: number, sleeve = 1): void {
  const s = side === 'l' ? 1 : -1;
  const shoulder: Vec3 = [s * 0.12, 1.425, -0.005];
  const elbow = rig.head(`lowerarm_${side}`);
  const wrist = rig.head(`hand_${side}`);
  const upperEnd = sleeve < 1 ? lerp3(shoulder, elbow, sleeve) : elbow;
  const upperLength = elbow[0] - shoulder[0];
  const tu = (x: number): number => (x - shoulder[0]) / (upperEnd[0] - shoulder[0] || upperLength);
  addTube(out, {
    from: shoulder,
    to: upperEnd,
    radius: (t) => {
      const along = (t * (upperEnd[0] - shoulder[0])) / upperLength; // 0..1 over the whole upper arm
      return profile(
        [
          [0, 0.058, 0.056],
          [0.3, 0.05, 0.048],
          [1, 0.04, 0.04],
        ],
        inflate,
      )(along);
    },
    rings: sleeve < 1 ? Math.max(2, Math.ceil(d.rings * sleeve) + 1) : d.rings,
    sides: d.sides,
    capStart: true,
    capEnd: sleeve < 1,
    weights: rig.weights(
      [`clavicle_${side}`, tu(s * 0.1)],
      [`upperarm_${side}`, tu(rig.head(`upperarm_${side}`)[0] + s * 0.03)],
      [`upperarm_twist_01_${side}`, tu(rig.head(`upperarm_twist_01_${side}`)[0] + s * 0.05)],
      [`lowerarm_${side}`, tu(elbow[0] + s * 0.1)],
    ),
    color,
  });
  if (sleeve < 1) return;
  addTube(out, {
    from: elbow,
    to: wrist,
    radius: profile(
      [
        [0, 0.04, 0.04],
        [0.35, 0.042, 0.038],
        [1, 0.028, 0.032],
      ],
      inflate,
    ),
    rings: d.rings,
    sides: d.sides,
    capStart: true,
    weights: rig.weights(
      [`upperarm_twist_01_${side}`, -0.35],
      [`lowerarm_${side}`, 0.3],
      [`lowerarm_twist_01_${side}`, 0.65],
      [`hand_${side}`, 1.1],
    ),
    color,
  });
}

function addHand(out: MeshAccumulator, rig: RigLookup, side: 'l' | 'r', color: Vec3, d: Detail): void {
  const s = side === 'l' ? 1 : -1;
  const wrist = rig.head(`hand_${side}`);
  addTube(out, {
    from: [wrist[0] - s * 0.005, wrist[1] - 0.003, wrist[2]],
    to: [s * 0.8, wrist[1] - 0.002, 0.0],
    radius: profile([
      [0, 0.02, 0.03],
      [0.5, 0.019, 0.043],
      [1, 0.015, 0.042],
    ]),
    rings: 2,
    sides: d.sides,
    capStart: true,
    capEnd: true,
    weights: rig.weights([`lowerarm_twist_01_${side}`, -0.6], [`hand_${side}`, 0.25]),
    color,
  });
  for (const finger of ['thumb', 'index', 'middle', 'ring', 'pinky']) {
    const p1 = rig.head(`${finger}_01_${side}`);
    const p2 = rig.head(`${finger}_02_${side}`);
    const p3 = rig.head(`${finger}_03_${side}`);
    const dir: Vec3 = [p3[0] - p2[0], p3[1] - p2[1], p3[2] - p2[2]];
    const dirLength = Math.hypot(...dir);
    const tip: Vec3 = [
      p3[0] + (dir[0] / dirLength) * FINGERTIP_LENGTH,
      p3[1] + (dir[1] / dirLength) * FINGERTIP_LENGTH,
      p3[2] + (dir[2] / dirLength) * FINGERTIP_LENGTH,
    ];
    const total = Math.hypot(tip[0] - p1[0], tip[1] - p1[1], tip[2] - p1[2]);
    const t2 = Math.hypot(p2[0] - p1[0], p2[1] - p1[1], p2[2] - p1[2]) / total;
    const t3 = Math.hypot(p3[0] - p1[0], p3[1] - p1[1], p3[2] - p1[2]) / total;
    const thick = finger === 'thumb' ? 0.0115 : finger === 'pinky' ? 0.0075 : 0.0088;
    addTube(out, {
      from: p1,
      to: tip,
      radius: profile([
        [0, thick, thick * 1.05],
        [1, thick * 0.8, thick * 0.85],
      ]),
      reference: [0, 1, 0],
      rings: d.fingerRings,
      sides: d.fingerSides,
      capStart: true,
      capEnd: true,
      weights: rig.weights(
        [`${finger}_01_${side}`, t2 * 0.5],
        [`${finger}_02_${side}`, (t2 + t3) / 2],
        [`${finger}_03_${side}`, (t3 + 1) / 2],
      ),
      color,
    });
  }
}

function addLeg(out: MeshAccumulator, rig: RigLookup, side: 'l' | 'r', color: Vec3, d: Detail, inflate: number, length: number): void {
  const hip = rig.head(`thigh_${side}`);
  const knee = rig.head(`calf_${side}`);
  const ankle = rig.head(`foot_${side}`);
  const top: Vec3 = [hip[0], hip[1] + 0.03, hip[2]];
  addTube(out, {
    from: top,
    to: knee,
    radius: profile(
      [
        [0, 0.085, 0.088],
        [0.5, 0.07, 0.072],
        [1, 0.054, 0.056],
      ],
      inflate,
    ),
    rings: d.rings,
    sides: d.sides,
    capStart: true,
    weights: rig.weights(['pelvis', -0.05], [`thigh_${side}`, 0.25], [`thigh_twist_01_${side}`, 0.6], [`calf_${side}`, 1.2]),
    color,
  });
  const end = length < 1 ? lerp3(knee, ankle, length) : ankle;
  addTube(out, {
    from: knee,
    to: end,
    radius: profile(
      [
        [0, 0.054, 0.056],
        [0.25, 0.058, 0.062],
        [1, 0.036, 0.038],
      ],
      inflate,
    ),
    rings: d.rings,
    sides: d.sides,
    capStart: true,
    capEnd: true,
    weights: rig.weights([`thigh_twist_01_${side}`, -0.3], [`calf_${side}`, 0.3], [`calf_twist_01_${side}`, 0.65], [`foot_${side}`, 1.15]),
    color,
  });
}

function buildClothing(rig: RigLookup, palette: HumanoidPalette, d: Detail): MeshAccumulator {
  const out = new MeshAccumulator();
  const shirtBottom = 0.9;
  const shirtTop = 1.49;
  // Shirt: the torso profile, a little larger, from the belt to the collar.
  const torso = profile(TORSO_STOPS, 0.015);
  addTube(out, {
    from: [0, shirtBottom, -0.005],
    to: [0, shirtTop, 0],
    radius: (t) => torso(tOf(shirtBottom + t * (shirtTop - shirtBottom), TORSO_BOTTOM, TORSO_TOP)),
    rings: d.rings + 3,
    sides: d.sides + 4,
    capStart: true,
    capEnd: true,
    weights: torsoWeights(rig).map((w) => ({
      bone: w.bone,
      t: tOf(TORSO_BOTTOM + w.t * (TORSO_TOP - TORSO_BOTTOM), shirtBottom, shirtTop),
    })),
    color: palette.shirt,
  });
  for (const side of ['l', 'r'] as const) addArm(out, rig, side, palette.shirt, d, 0.016, 0.55);
  // Trousers: a hip band and both legs down to the ankles.
  const hips = profile(TORSO_STOPS, 0.014);
  addTube(out, {
    from: [0, 0.8, -0.005],
    to: [0, 0.98, -0.005],
    radius: (t) => hips(tOf(0.8 + t * 0.18, TORSO_BOTTOM, TORSO_TOP)),
    rings: 2,
    sides: d.sides + 4,
    capStart: true,
    capEnd: true,
    weights: rig.weights(['pelvis', 0], ['spine_01', 1.3]),
    color: palette.pants,
  });
  for (const side of ['l', 'r'] as const) {
    addLeg(out, rig, side, palette.pants, d, 0.012, 0.93);
    // Shoe: heel to toe, weighted to the foot and the ball.
    const s = side === 'l' ? 1 : -1;
    addTube(out, {
      from: [s * 0.095, 0.055, -0.06],
      to: [s * 0.1, 0.045, 0.17],
      radius: profile([
        [0, 0.05, 0.045],
        [0.35, 0.058, 0.05],
        [0.75, 0.04, 0.052],
        [1, 0.03, 0.042],
      ]),
      reference: [0, 1, 0],
      rings: d.rings,
      sides: d.sides,
      capStart: true,
      capEnd: true,
      weights: rig.weights([`foot_${side}`, 0.45], [`ball_${side}`, 0.8]),
      color: palette.shoes,
    });
  }
  return out;
}

/** Where the jaw ellipsoid sits below and in front of the skull's centre, and its radii (metres). */
const JAW_DROP = 0.074;
const JAW_FORWARD = 0.03;
const JAW_RADII: Vec3 = [0.062, 0.04, 0.064];

function buildHead(rig: RigLookup, palette: HumanoidPalette, d: Detail): BufferGeometry {
  const out = new MeshAccumulator();
  const head = rig.bone('head');
  const detail = { rings: d.headRings, sides: d.headSides };
  const small = { rings: Math.max(4, d.headRings >> 1), sides: Math.max(6, d.headSides >> 1) };
  const [cx, cy, cz] = HEAD_CENTER;
  const skullStart = out.vertexCount;
  addEllipsoid(out, HEAD_CENTER, HEAD_RADII, head, palette.skin, detail);
  const craniumEnd = out.vertexCount;
  // The jaw: the lower face juts forward and down in front of the neck, so the head reads as
  // level from any height. Without it the skull's underside curves back to the neck, and from a
  // low camera the face looks turned up at the sky.
  addEllipsoid(out, [cx, cy - JAW_DROP, cz + JAW_FORWARD], JAW_RADII, head, palette.skin, detail);
  const skullEnd = out.vertexCount;
  // Narrow the cranium below its middle and push the face forward a little, so it reads as a head, not an egg.
  for (let i = skullStart; i < craniumEnd; i++) {
    const y = out.positions[i * 3 + 1]!;
    const below = Math.max(0, (cy - y) / HEAD_RADII[1]);
    out.positions[i * 3] = cx + (out.positions[i * 3]! - cx) * (1 - 0.28 * below);
    const z = out.positions[i * 3 + 2]!;
    if (z > cz) out.positions[i * 3 + 2] = cz + (z - cz) * (1 + 0.08 * (1 - below));
  }
  // Hair: a slightly larger shell shifted up and back, so the face stays uncovered.
  addEllipsoid(
    out,
    [cx, cy + 0.025, cz - 0.018],
    [HEAD_RADII[0] * 1.07, HEAD_RADII[1] * 0.93, HEAD_RADII[2] * 1.02],
    head,
    palette.hair,
    detail,
  );
  // Nose and ears.
  addEllipsoid(out, [cx, cy - 0.005, cz + HEAD_RADII[2] * 1.02], [0.014, 0.024, 0.02], head, palette.skin, small);
  for (const s of [1, -1])
    addEllipsoid(out, [cx + s * HEAD_RADII[0] * 0.98, cy, cz - 0.005], [0.012, 0.026, 0.018], head, palette.skin, small);
  const eyesStart = out.vertexCount;
  for (const s of [1, -1])
    addEllipsoid(out, [cx + s * 0.034, cy + 0.018, cz + HEAD_RADII[2] * 0.9], [0.013, 0.011, 0.01], head, palette.eyes, small);
  const geometry = toGeometry(out);
  addFaceMorphs(geometry, { eyesStart, eyesEnd: out.vertexCount, skullStart, skullEnd });
  return geometry;
}

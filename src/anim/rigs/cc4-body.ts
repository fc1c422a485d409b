import type { BufferGeometry } from 'three';
import {
  add,
  along,
  BODY_DETAIL,
  length,
  profile,
  RigLookup,
  sub,
  toGeometry,
  unit,
  type BodyDetail,
  type BodyPalette,
  type BodyPiece,
  type HumanoidDetail,
} from '../../rig/body-kit.ts';
import { addEllipsoid, addTube, MeshAccumulator, type TubeBreakpoint, type Vec3 } from '../../rig/tube.ts';
import { CC4_RIG } from './cc4.ts';

/** Colours of the CC4-style character: chosen to tell it apart from the mannequin. */
export type Cc4Palette = BodyPalette;

/** The CC4-style character's colours: a red shirt, olive trousers, near-black hair. */
export const CC4_PALETTE: Cc4Palette = {
  skin: [0.62, 0.42, 0.3],
  hair: [0.05, 0.04, 0.035],
  shirt: [0.55, 0.12, 0.1],
  pants: [0.2, 0.22, 0.12],
  shoes: [0.09, 0.07, 0.06],
  eyes: [0.05, 0.06, 0.1],
};

type Detail = BodyDetail;
type Lookup = RigLookup;

const TORSO_BOTTOM = 0.9;
const TORSO_TOP = 1.57;
const tOf = (y: number): number => (y - TORSO_BOTTOM) / (TORSO_TOP - TORSO_BOTTOM);
const TORSO: Array<[number, number, number]> = [
  [0, 0.16, 0.105],
  [tOf(1.02), 0.17, 0.112],
  [tOf(1.14), 0.142, 0.1],
  [tOf(1.3), 0.17, 0.115],
  [tOf(1.44), 0.195, 0.115],
  [tOf(1.52), 0.16, 0.1],
  [1, 0.07, 0.06],
];

function torsoWeights(rig: Lookup): TubeBreakpoint[] {
  const t = (bone: string, lift: number): [string, number] => [bone, tOf(rig.head(bone)[1] + lift)];
  return rig.weights(
    t('CC_Base_Pelvis', -0.02),
    t('CC_Base_Hip', 0.02),
    t('CC_Base_Waist', 0.04),
    t('CC_Base_Spine01', 0.05),
    t('CC_Base_Spine02', 0.06),
    t('CC_Base_NeckTwist01', 0.02),
  );
}

/**
 * Builds the CC4-style character's three pieces — body, head, clothing — in its A-pose bind,
 * skinned to {@link CC4_RIG} (twist bones carry the middle of each limb, the jaw bone the lower face,
 * eye bones the eyes, finger joints the fingers).
 */
export function buildCc4Pieces(palette: Cc4Palette = CC4_PALETTE, detail: HumanoidDetail = 'high'): BodyPiece[] {
  const rig = new RigLookup(CC4_RIG, 'CC4 body');
  const d = BODY_DETAIL[detail];
  return [
    { name: 'body', geometry: toGeometry(buildBody(rig, palette, d)) },
    { name: 'head', geometry: buildHead(rig, palette, d) },
    { name: 'clothing', geometry: toGeometry(buildClothing(rig, palette, d)) },
  ];
}

function buildBody(rig: Lookup, palette: Cc4Palette, d: Detail): MeshAccumulator {
  const out = new MeshAccumulator();
  addTube(out, {
    from: [0, TORSO_BOTTOM, -0.008],
    to: [0, TORSO_TOP, 0],
    radius: profile(TORSO),
    rings: d.rings + 4,
    sides: d.sides + 4,
    capStart: true,
    weights: torsoWeights(rig),
    color: palette.skin,
  });
  addTube(out, {
    from: [0, 1.53, 0],
    to: [0, 1.72, 0.02],
    radius: profile([
      [0, 0.06, 0.058],
      [1, 0.05, 0.052],
    ]),
    rings: 3,
    sides: d.sides,
    weights: rig.weights(['CC_Base_Spine02', -0.2], ['CC_Base_NeckTwist01', 0.2], ['CC_Base_NeckTwist02', 0.55], ['CC_Base_Head', 0.95]),
    color: palette.skin,
  });
  for (const side of ['L', 'R'] as const) {
    addArm(out, rig, side, palette.skin, d, 0, 1);
    addHand(out, rig, side, palette.skin, d);
    addLeg(out, rig, side, palette.skin, d, 0, 1);
  }
  return out;
}

function addArm(out: MeshAccumulator, rig: Lookup, side: 'L' | 'R', color: Vec3, d: Detail, inflate: number, sleeve: number): void {
  const b = (name: string): string => `CC_Base_${side}_${name}`;
  const shoulder = rig.head(b('Upperarm'));
  const elbow = rig.head(b('Forearm'));
  const wrist = rig.head(b('Hand'));
  const dir = unit(sub(elbow, shoulder));
  const start = add(shoulder, dir, -0.065);
  const end = sleeve < 1 ? add(start, sub(elbow, start), sleeve) : elbow;
  const tArm = (p: Vec3): number => along(p, start, end);
  addTube(out, {
    from: start,
    to: end,
    radius: (t) => {
      const whole = (t * length(sub(end, start))) / length(sub(elbow, start));
      return profile(
        [
          [0, 0.06, 0.058],
          [0.3, 0.052, 0.05],
          [1, 0.041, 0.041],
        ],
        inflate,
      )(whole);
    },
    rings: sleeve < 1 ? 2 : d.rings,
    sides: d.sides,
    capStart: true,
    capEnd: sleeve < 1,
    weights: rig.weights(
      [b('Clavicle'), tArm(add(start, dir, 0.02))],
      [b('Upperarm'), tArm(add(shoulder, dir, 0.03))],
      [b('UpperarmTwist01'), tArm(rig.head(b('UpperarmTwist01')))],
      [b('UpperarmTwist02'), tArm(rig.head(b('UpperarmTwist02')))],
      [b('Forearm'), tArm(add(elbow, dir, 0.06))],
    ),
    color,
  });
  if (sleeve < 1) return;
  const tFore = (p: Vec3): number => along(p, elbow, wrist);
  addTube(out, {
    from: elbow,
    to: wrist,
    radius: profile(
      [
        [0, 0.041, 0.041],
        [0.35, 0.043, 0.039],
        [1, 0.029, 0.033],
      ],
      inflate,
    ),
    rings: d.rings,
    sides: d.sides,
    capStart: true,
    weights: rig.weights(
      [b('UpperarmTwist02'), -0.3],
      [b('Forearm'), 0.2],
      [b('ForearmTwist01'), tFore(rig.head(b('ForearmTwist01')))],
      [b('ForearmTwist02'), tFore(rig.head(b('ForearmTwist02')))],
      [b('Hand'), 1.1],
    ),
    color,
  });
}

function addHand(out: MeshAccumulator, rig: Lookup, side: 'L' | 'R', color: Vec3, d: Detail): void {
  const b = (name: string): string => `CC_Base_${side}_${name}`;
  const wrist = rig.head(b('Hand'));
  const knuckles = rig.head(b('Mid1'));
  addTube(out, {
    from: add(wrist, unit(sub(knuckles, wrist)), -0.005),
    to: knuckles,
    radius: profile([
      [0, 0.021, 0.03],
      [0.5, 0.02, 0.044],
      [1, 0.016, 0.043],
    ]),
    reference: [0, 0, 1],
    rings: 2,
    sides: d.sides,
    capStart: true,
    capEnd: true,
    weights: rig.weights([b('ForearmTwist02'), -0.6], [b('Hand'), 0.25]),
    color,
  });
  for (const finger of ['Thumb', 'Index', 'Mid', 'Ring', 'Pinky']) {
    const p1 = rig.head(b(`${finger}1`));
    const p2 = rig.head(b(`${finger}2`));
    const p3 = rig.head(b(`${finger}3`));
    const tip = add(p3, unit(sub(p3, p2)), 0.026);
    const total = length(sub(tip, p1));
    const t2 = length(sub(p2, p1)) / total;
    const t3 = length(sub(p3, p1)) / total;
    const thick = finger === 'Thumb' ? 0.012 : finger === 'Pinky' ? 0.0078 : 0.0092;
    addTube(out, {
      from: p1,
      to: tip,
      radius: profile([
        [0, thick, thick * 1.05],
        [1, thick * 0.8, thick * 0.85],
      ]),
      reference: [0, 0, 1],
      rings: d.fingerRings,
      sides: d.fingerSides,
      capStart: true,
      capEnd: true,
      weights: rig.weights([b(`${finger}1`), t2 * 0.5], [b(`${finger}2`), (t2 + t3) / 2], [b(`${finger}3`), (t3 + 1) / 2]),
      color,
    });
  }
}

function addLeg(out: MeshAccumulator, rig: Lookup, side: 'L' | 'R', color: Vec3, d: Detail, inflate: number, reach: number): void {
  const b = (name: string): string => `CC_Base_${side}_${name}`;
  const hip = rig.head(b('Thigh'));
  const knee = rig.head(b('Calf'));
  const ankle = rig.head(b('Foot'));
  const top: Vec3 = [hip[0], hip[1] + 0.035, hip[2]];
  const tThigh = (p: Vec3): number => along(p, top, knee);
  addTube(out, {
    from: top,
    to: knee,
    radius: profile(
      [
        [0, 0.088, 0.09],
        [0.5, 0.072, 0.074],
        [1, 0.055, 0.057],
      ],
      inflate,
    ),
    rings: d.rings,
    sides: d.sides,
    capStart: true,
    weights: rig.weights(
      ['CC_Base_Pelvis', -0.05],
      [b('Thigh'), 0.2],
      [b('ThighTwist01'), tThigh(rig.head(b('ThighTwist01')))],
      [b('ThighTwist02'), tThigh(rig.head(b('ThighTwist02')))],
      [b('Calf'), 1.15],
    ),
    color,
  });
  const end = reach < 1 ? add(knee, sub(ankle, knee), reach) : ankle;
  const tCalf = (p: Vec3): number => along(p, knee, end);
  addTube(out, {
    from: knee,
    to: end,
    radius: profile(
      [
        [0, 0.055, 0.057],
        [0.25, 0.06, 0.064],
        [1, 0.037, 0.039],
      ],
      inflate,
    ),
    rings: d.rings,
    sides: d.sides,
    capStart: true,
    capEnd: true,
    weights: rig.weights(
      [b('ThighTwist02'), -0.3],
      [b('Calf'), 0.25],
      [b('CalfTwist01'), tCalf(rig.head(b('CalfTwist01')))],
      [b('CalfTwist02'), tCalf(rig.head(b('CalfTwist02')))],
      [b('Foot'), 1.12],
    ),
    color,
  });
}

function buildClothing(rig: Lookup, palette: Cc4Palette, d: Detail): MeshAccumulator {
  const out = new MeshAccumulator();
  const shirtBottom = 0.93;
  const shirtTop = 1.55;
  const torso = profile(TORSO, 0.012);
  addTube(out, {
    from: [0, shirtBottom, -0.008],
    to: [0, shirtTop, 0],
    radius: (t) => torso(tOf(shirtBottom + t * (shirtTop - shirtBottom))),
    rings: d.rings + 3,
    sides: d.sides + 4,
    capStart: true,
    capEnd: true,
    weights: torsoWeights(rig).map((w) => ({
      bone: w.bone,
      t: (TORSO_BOTTOM + w.t * (TORSO_TOP - TORSO_BOTTOM) - shirtBottom) / (shirtTop - shirtBottom),
    })),
    color: palette.shirt,
  });
  for (const side of ['L', 'R'] as const) addArm(out, rig, side, palette.shirt, d, 0.01, 0.45);
  const hips = profile(TORSO, 0.014);
  addTube(out, {
    from: [0, 0.84, -0.008],
    to: [0, 1.02, -0.008],
    radius: (t) => hips(tOf(0.84 + t * 0.18)),
    rings: 2,
    sides: d.sides + 4,
    capStart: true,
    capEnd: true,
    weights: rig.weights(['CC_Base_Pelvis', 0.3], ['CC_Base_Hip', 0.8], ['CC_Base_Waist', 1.3]),
    color: palette.pants,
  });
  for (const side of ['L', 'R'] as const) {
    addLeg(out, rig, side, palette.pants, d, 0.012, 0.8);
    const s = side === 'L' ? 1 : -1;
    const b = (name: string): string => `CC_Base_${side}_${name}`;
    // Boot: a shaft over the lower calf and a foot from heel to toe.
    const knee = rig.head(b('Calf'));
    const ankle = rig.head(b('Foot'));
    addTube(out, {
      from: add(knee, sub(ankle, knee), 0.62),
      to: [ankle[0], ankle[1] - 0.02, ankle[2]],
      radius: profile([
        [0, 0.05, 0.052],
        [1, 0.052, 0.056],
      ]),
      rings: 2,
      sides: d.sides,
      capStart: true,
      weights: rig.weights([b('CalfTwist02'), 0], [b('Foot'), 1]),
      color: palette.shoes,
    });
    addTube(out, {
      from: [s * 0.1, 0.058, -0.07],
      to: [s * 0.106, 0.045, 0.19],
      radius: profile([
        [0, 0.052, 0.047],
        [0.35, 0.06, 0.052],
        [0.75, 0.042, 0.054],
        [1, 0.031, 0.044],
      ]),
      reference: [0, 1, 0],
      rings: d.rings,
      sides: d.sides,
      capStart: true,
      capEnd: true,
      weights: rig.weights([b('Foot'), 0.5], [b('ToeBase'), 0.78]),
      color: palette.shoes,
    });
  }
  return out;
}

function buildHead(rig: Lookup, palette: Cc4Palette, d: Detail): BufferGeometry {
  const out = new MeshAccumulator();
  const head = rig.bone('CC_Base_Head');
  const jaw = rig.bone('CC_Base_JawRoot');
  const detail = { rings: d.headRings, sides: d.headSides };
  const small = { rings: Math.max(4, d.headRings >> 1), sides: Math.max(6, d.headSides >> 1) };
  const center: Vec3 = [0, 1.79, 0.03];
  const radii: Vec3 = [0.088, 0.115, 0.104];
  addEllipsoid(out, center, radii, head, palette.skin, detail);
  // Lower face on the jaw bone: an open mouth drops it.
  addEllipsoid(out, [0, 1.715, 0.06], [0.062, 0.045, 0.07], jaw, palette.skin, detail);
  addEllipsoid(
    out,
    [0, center[1] + 0.03, center[2] - 0.015],
    [radii[0] * 1.06, radii[1] * 0.9, radii[2] * 1.03],
    head,
    palette.hair,
    detail,
  );
  addEllipsoid(out, rig.head('CC_Base_NoseTip'), [0.015, 0.026, 0.022], rig.bone('CC_Base_NoseTip'), palette.skin, small);
  for (const side of ['L', 'R'] as const) {
    addEllipsoid(out, rig.head(`CC_Base_${side}_Ear`), [0.012, 0.028, 0.019], rig.bone(`CC_Base_${side}_Ear`), palette.skin, small);
    const eye = rig.head(`CC_Base_${side}_Eye`);
    addEllipsoid(out, [eye[0], eye[1], eye[2] + 0.016], [0.013, 0.011, 0.01], rig.bone(`CC_Base_${side}_Eye`), palette.eyes, small);
  }
  return toGeometry(out);
}

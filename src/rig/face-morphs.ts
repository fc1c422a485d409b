import { Float32BufferAttribute, type BufferGeometry } from 'three';
import type { Vec3 } from './tube.ts';

/** Centre and radii of the mannequin's skull ellipsoid, model space. */
export const HEAD_CENTER: Vec3 = [0, 1.72, 0.025];
/** Radii (m) of the skull ellipsoid. */
export const HEAD_RADII: Vec3 = [0.085, 0.112, 0.1];

/** Names of the facial blend shapes every procedural head carries, in morph-target order. */
export const FACE_MORPHS = ['jawOpen', 'smile', 'blink'] as const;
/** One of {@link FACE_MORPHS}. */
export type FaceMorph = (typeof FACE_MORPHS)[number];

/** Where the head geometry's skull and eye vertices are, so the morphs move only those. */
export interface FaceRegions {
  /** First skull vertex. */
  skullStart: number;
  /** One past the last skull vertex. */
  skullEnd: number;
  /** First eye vertex. */
  eyesStart: number;
  /** One past the last eye vertex. */
  eyesEnd: number;
}

/**
 * Adds facial blend shapes to the head geometry as real character files carry them: `jawOpen`
 * drops the lower front of the face, `smile` lifts and widens the mouth corners, `blink` flattens
 * the eyes. Displacements are relative (morphTargetsRelative) so they add to the skinned pose.
 */
export function addFaceMorphs(geometry: BufferGeometry, regions: FaceRegions): void {
  const position = geometry.getAttribute('position');
  const count = position.count;
  const jaw = new Float32Array(count * 3);
  const smile = new Float32Array(count * 3);
  const blink = new Float32Array(count * 3);
  const [cx, cy, cz] = HEAD_CENTER;
  const mouthY = cy - 0.05;
  for (let i = regions.skullStart; i < regions.skullEnd; i++) {
    const x = position.getX(i);
    const y = position.getY(i);
    const z = position.getZ(i);
    if (z < cz) continue;
    const front = Math.min(1, (z - cz) / HEAD_RADII[2]);
    if (y < mouthY) {
      const depth = Math.min(1, (mouthY - y) / 0.05);
      jaw[i * 3 + 1] = -0.022 * depth * front;
      jaw[i * 3 + 2] = -0.004 * depth * front;
    }
    const corner = Math.exp(-(((Math.abs(x - cx) - 0.03) / 0.015) ** 2) - ((y - mouthY) / 0.018) ** 2);
    smile[i * 3] = Math.sign(x - cx) * 0.004 * corner * front;
    smile[i * 3 + 1] = 0.007 * corner * front;
  }
  for (let i = regions.eyesStart; i < regions.eyesEnd; i++) {
    // Each eye is an ellipsoid around y = cy + 0.018: collapse it towards that line.
    blink[i * 3 + 1] = (cy + 0.018 - position.getY(i)) * 0.85;
  }
  geometry.morphAttributes.position = [jaw, smile, blink].map((data, index) => {
    const attribute = new Float32BufferAttribute(data, 3);
    attribute.name = FACE_MORPHS[index]!;
    return attribute;
  });
  geometry.morphTargetsRelative = true;
}

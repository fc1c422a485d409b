/**
 * Skinned tube geometry: the building block of Cairn's procedural characters. A tube runs straight
 * between two points with an elliptical cross-section whose radii follow a profile; optional
 * hemispherical caps close its ends. Skin weights come from "breakpoints" along the tube: each
 * breakpoint is a bone at a parameter t, and a vertex blends linearly between the two breakpoints
 * around it (a hat function), so joints bend smoothly with at most two influences per vertex.
 */

export type Vec3 = readonly [number, number, number];

/** A bone that weights a tube from parameter `t` along it. */
export interface TubeBreakpoint {
  /** Bone index in the skeleton. */
  bone: number;
  /** Position along the tube, 0 at `from`, 1 at `to`; values outside [0, 1] are fine. */
  t: number;
}

/** A skinned tube between two points ({@link addTube}). */
export interface TubeSpec {
  /** Start point (m, model space). */
  from: Vec3;
  /** End point. */
  to: Vec3;
  /** Cross-section radii at t ∈ [0, 1]: [along u, along v]. */
  radius: (t: number) => readonly [number, number];
  /**
   * Reference direction for the cross-section's u axis. Default: +Y for tubes that are not
   * vertical, +X for vertical ones (so a torso's first radius is its width).
   */
  reference?: Vec3;
  /** Cross-section rings along the tube. */
  rings: number;
  /** Vertices around each ring. */
  sides: number;
  /** Close the start with a hemispherical cap. Default false. */
  capStart?: boolean;
  /** Close the end with a hemispherical cap. Default false. */
  capEnd?: boolean;
  /** Sorted by t; at least one. */
  weights: readonly TubeBreakpoint[];
  /** Linear RGB 0..1. */
  color: Vec3;
}

/** Growing arrays for one geometry piece (positions, normals, colours, skinning, indices). */
export class MeshAccumulator {
  /** Positions, three per vertex. */
  positions: number[] = [];
  /** Normals, three per vertex. */
  normals: number[] = [];
  /** Colours, three per vertex. */
  colors: number[] = [];
  /** Skin indices, four per vertex. */
  skinIndices: number[] = [];
  /** Skin weights, four per vertex. */
  skinWeights: number[] = [];
  /** Triangle indices. */
  indices: number[] = [];

  /** Vertices added so far. */
  get vertexCount(): number {
    return this.positions.length / 3;
  }

  /** Adds a vertex (up to four bone influences, the rest zero); returns its index. */
  addVertex(p: Vec3, n: Vec3, color: Vec3, bones: readonly number[], weights: readonly number[]): number {
    this.positions.push(p[0], p[1], p[2]);
    this.normals.push(n[0], n[1], n[2]);
    this.colors.push(color[0], color[1], color[2]);
    for (let i = 0; i < 4; i++) {
      this.skinIndices.push(bones[i] ?? 0);
      this.skinWeights.push(weights[i] ?? 0);
    }
    return this.vertexCount - 1;
  }
}

/** Weights of a vertex at parameter t: two bones at most, summing to 1. */
export function hatWeights(
  breakpoints: readonly TubeBreakpoint[],
  t: number,
): {
  /** One or two bone indices. */
  bones: number[];
  /** Their weights, summing to 1. */
  weights: number[];
} {
  if (breakpoints.length === 0) throw new Error('tube needs at least one weight breakpoint');
  const first = breakpoints[0]!;
  const last = breakpoints[breakpoints.length - 1]!;
  if (t <= first.t) return { bones: [first.bone], weights: [1] };
  if (t >= last.t) return { bones: [last.bone], weights: [1] };
  for (let i = 0; i < breakpoints.length - 1; i++) {
    const a = breakpoints[i]!;
    const b = breakpoints[i + 1]!;
    if (t >= a.t && t <= b.t) {
      const f = b.t === a.t ? 1 : (t - a.t) / (b.t - a.t);
      if (a.bone === b.bone) return { bones: [a.bone], weights: [1] };
      return { bones: [a.bone, b.bone], weights: [1 - f, f] };
    }
  }
  return { bones: [last.bone], weights: [1] };
}

function sub(a: Vec3, b: Vec3): [number, number, number] {
  return [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
}
function normalize(v: Vec3): [number, number, number] {
  const l = Math.hypot(v[0], v[1], v[2]) || 1;
  return [v[0] / l, v[1] / l, v[2] / l];
}
function cross(a: Vec3, b: Vec3): [number, number, number] {
  return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
}
function dot(a: Vec3, b: Vec3): number {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

/** Appends one tube to the accumulator. Triangles wind counter-clockwise seen from outside. */
export function addTube(out: MeshAccumulator, spec: TubeSpec): void {
  const axisVector = sub(spec.to, spec.from);
  const length = Math.hypot(...axisVector);
  const axis = normalize(axisVector);
  const reference = spec.reference ?? (Math.abs(axis[1]) > 0.9 ? ([1, 0, 0] as const) : ([0, 1, 0] as const));
  const refDot = dot(reference, axis);
  const u = normalize([reference[0] - axis[0] * refDot, reference[1] - axis[1] * refDot, reference[2] - axis[2] * refDot]);
  const v = cross(axis, u);
  const sides = spec.sides;
  const capRings = Math.max(2, Math.round(sides / 4));

  // Each ring: axial offset from `from` (metres), radii, the axial tilt of its normals, and t for weights.
  interface Ring {
    offset: number;
    ru: number;
    rv: number;
    /** sin of the angle the normal leans along the axis (−1 at the start pole, +1 at the end pole). */
    lean: number;
    t: number;
  }
  const rings: Ring[] = [];
  const [startU, startV] = spec.radius(0);
  const [endU, endV] = spec.radius(1);
  if (spec.capStart) {
    const depth = Math.min(startU, startV);
    for (let k = 0; k < capRings; k++) {
      const phi = (Math.PI / 2) * (1 - k / capRings); // 90° at the pole
      rings.push({ offset: -depth * Math.sin(phi), ru: startU * Math.cos(phi), rv: startV * Math.cos(phi), lean: -Math.sin(phi), t: 0 });
    }
  }
  const meanRadius = (t: number): number => {
    const [a, b] = spec.radius(Math.min(1, Math.max(0, t)));
    return (a + b) / 2;
  };
  for (let i = 0; i <= spec.rings; i++) {
    const t = i / spec.rings;
    const [ru, rv] = spec.radius(t);
    // Tapering leans the normal along the axis: n ∝ radial − axis·dr/ds.
    const dt = 0.5 / spec.rings;
    const slope = (meanRadius(t + dt) - meanRadius(t - dt)) / (Math.max(1e-6, Math.min(1, t + dt) - Math.max(0, t - dt)) * length);
    rings.push({ offset: t * length, ru, rv, lean: -slope / Math.sqrt(1 + slope * slope), t });
  }
  if (spec.capEnd) {
    const depth = Math.min(endU, endV);
    for (let k = 1; k <= capRings; k++) {
      const phi = (Math.PI / 2) * (k / capRings);
      rings.push({ offset: length + depth * Math.sin(phi), ru: endU * Math.cos(phi), rv: endV * Math.cos(phi), lean: Math.sin(phi), t: 1 });
    }
  }

  const ringStarts: number[] = [];
  for (const ring of rings) {
    const { bones, weights } = hatWeights(spec.weights, ring.t);
    const center: Vec3 = [spec.from[0] + axis[0] * ring.offset, spec.from[1] + axis[1] * ring.offset, spec.from[2] + axis[2] * ring.offset];
    const isPole = ring.ru < 1e-6 && ring.rv < 1e-6;
    ringStarts.push(out.vertexCount);
    const count = isPole ? 1 : sides;
    for (let j = 0; j < count; j++) {
      const theta = (j / sides) * Math.PI * 2;
      const c = Math.cos(theta);
      const s = Math.sin(theta);
      const p: Vec3 = [
        center[0] + u[0] * ring.ru * c + v[0] * ring.rv * s,
        center[1] + u[1] * ring.ru * c + v[1] * ring.rv * s,
        center[2] + u[2] * ring.ru * c + v[2] * ring.rv * s,
      ];
      // Ellipse normal in the section plane (c/ru, s/rv), leaned along the axis on the caps.
      const radial = isPole
        ? ([0, 0, 0] as Vec3)
        : normalize([
            (u[0] * c) / Math.max(ring.ru, 1e-4) + (v[0] * s) / Math.max(ring.rv, 1e-4),
            (u[1] * c) / Math.max(ring.ru, 1e-4) + (v[1] * s) / Math.max(ring.rv, 1e-4),
            (u[2] * c) / Math.max(ring.ru, 1e-4) + (v[2] * s) / Math.max(ring.rv, 1e-4),
          ]);
      const along = ring.lean;
      const across = Math.sqrt(Math.max(0, 1 - along * along));
      const n = normalize([
        radial[0] * across + axis[0] * along,
        radial[1] * across + axis[1] * along,
        radial[2] * across + axis[2] * along,
      ]);
      out.addVertex(p, n, spec.color, bones, weights);
    }
  }

  for (let r = 0; r < rings.length - 1; r++) {
    const a0 = ringStarts[r]!;
    const b0 = ringStarts[r + 1]!;
    const aPole = ringStarts[r + 1]! - a0 === 1;
    const bPole = (r + 2 < ringStarts.length ? ringStarts[r + 2]! : out.vertexCount) - b0 === 1;
    for (let j = 0; j < sides; j++) {
      const j1 = (j + 1) % sides;
      if (aPole) {
        out.indices.push(a0, b0 + j1, b0 + j);
      } else if (bPole) {
        out.indices.push(a0 + j, a0 + j1, b0);
      } else {
        const a = a0 + j;
        const b = a0 + j1;
        const c = b0 + j;
        const d = b0 + j1;
        out.indices.push(a, b, c, b, d, c);
      }
    }
  }
}

/**
 * Appends an ellipsoid (centre, radii along X/Y/Z) built as a vertical tube with pole caps, all
 * weighted to one bone.
 */
export function addEllipsoid(
  out: MeshAccumulator,
  center: Vec3,
  radii: Vec3,
  bone: number,
  color: Vec3,
  detail: { rings: number; sides: number },
): void {
  const [rx, ry, rz] = radii;
  addTube(out, {
    from: [center[0], center[1] - ry * 0.999, center[2]],
    to: [center[0], center[1] + ry * 0.999, center[2]],
    reference: [1, 0, 0],
    radius: (t) => {
      const s = Math.sqrt(Math.max(0, 1 - (2 * t - 1) ** 2));
      return [Math.max(rx * s, 1e-7), Math.max(rz * s, 1e-7)];
    },
    rings: detail.rings,
    sides: detail.sides,
    weights: [{ bone, t: 0 }],
    color,
  });
}

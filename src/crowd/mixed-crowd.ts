/**
 * MixedCrowd: several bodies or rigs in one crowd. Each template keeps its own Crowd (its baked
 * clips, its bone buffers, one draw call per geometry piece), all under one scene object, updated
 * together from one clock and published as one set of stats. Avatars pick their body when added;
 * everything else (clips, crossfades, palette, procedural control) is as in {@link Crowd}.
 */
import { Group, type Camera } from 'three';
import { withDefaults } from '../core/options.ts';
import { Crowd, CROWD_DEFAULTS, type AddAgentOptions, type CrowdAgent, type CrowdOptions, type CrowdStats } from './crowd.ts';
import type { CrowdTemplate } from './template.ts';

/** Options of a {@link MixedCrowd}: a {@link Crowd}'s, with one template per body. */
export interface MixedCrowdOptions extends Omit<CrowdOptions, 'template'> {
  /** One template per body; at least one. */
  templates: CrowdTemplate[];
}

/** Where and how a new avatar of a {@link MixedCrowd} starts, and which body it wears. */
export interface AddMixedAgentOptions extends AddAgentOptions {
  /** Index into `templates` (wraps). Default 0. */
  body?: number;
}

/** Several bodies in one crowd: one {@link Crowd} per template behind one `add`/`update`/`stats`; each body draws once per geometry piece. */
export class MixedCrowd {
  /** Add this to the scene: one child per body. */
  readonly object = new Group();
  /** One crowd per template, in the order of `templates`. */
  readonly crowds: Crowd[];

  constructor(options: MixedCrowdOptions) {
    if (options.templates.length === 0) throw new RangeError('MixedCrowd: at least one template');
    // Resolved once for every body; each Crowd finds nothing left to fill.
    const { templates, ...rest } = options;
    const shared = withDefaults(CROWD_DEFAULTS, rest);
    this.crowds = templates.map((template) => new Crowd({ ...rest, ...shared, template }));
    this.object.name = 'mixed-crowd';
    for (const crowd of this.crowds) this.object.add(crowd.object);
  }

  /** Avatars in every body's crowd. */
  get count(): number {
    return this.crowds.reduce((sum, crowd) => sum + crowd.count, 0);
  }

  /** Adds an avatar wearing body `body`. */
  add(options: AddMixedAgentOptions = {}): CrowdAgent {
    const n = this.crowds.length;
    return this.crowds[(((options.body ?? 0) % n) + n) % n]!.add(options);
  }

  /** Advances and draws every body's crowd (see {@link Crowd.update}). */
  update(dt: number, camera: Camera): void {
    for (const crowd of this.crowds) crowd.update(dt, camera);
  }

  /** One set of figures for all bodies: counts, bytes and draw calls summed, reasons merged. */
  get stats(): CrowdStats {
    const all = this.crowds.map((crowd) => crowd.stats);
    const first = all[0]!;
    const sum = (key: keyof CrowdStats): number => all.reduce((total, s) => total + (s[key] as number), 0);
    const reasons: Record<string, number> = {};
    for (const s of all) for (const [why, count] of Object.entries(s.reasons)) reasons[why] = (reasons[why] ?? 0) + count;
    return {
      ...first,
      template: all.map((s) => s.template).join(' + '),
      pieces: sum('pieces'),
      bones: Math.max(...all.map((s) => s.bones)),
      drawCallsPerPass: sum('drawCallsPerPass'),
      agents: sum('agents'),
      visible: sum('visible'),
      live: sum('live'),
      gpu: sum('gpu'),
      culled: sum('culled'),
      reasons,
      liveUpdates: sum('liveUpdates'),
      animMs: sum('animMs'),
      animMsAvg: sum('animMsAvg'),
      uploadBytes: sum('uploadBytes'),
      liveBytes: sum('liveBytes'),
      instanceBytes: sum('instanceBytes'),
      poseBytes: sum('poseBytes'),
      animBytes: sum('animBytes'),
      gpuBytes: sum('gpuBytes'),
      bakedBytes: sum('bakedBytes'),
      liveCapacity: sum('liveCapacity'),
      instanceCapacity: sum('instanceCapacity'),
      bakedRows: sum('bakedRows'),
      clips: sum('clips'),
      grows: sum('grows'),
    };
  }

  /** Removes every avatar of every body. */
  clear(): void {
    for (const crowd of this.crowds) crowd.clear();
  }

  /** Disposes every body's crowd and takes the group out of the scene. */
  dispose(): void {
    for (const crowd of this.crowds) crowd.dispose();
    this.object.removeFromParent();
  }
}

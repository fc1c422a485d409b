import { withDefaults } from '../core/options.ts';
import type { Object3D } from 'three';
import { disposeObject3D, type DisposedCounts } from './dispose-object.ts';
import type { LoadedModel } from './model-loader.ts';
import { ModelSimplifier, type ModelSimplifierOptions, type SimplifyReport } from './model-simplifier.ts';
import type { SimplifyFunction } from './simplify-index.ts';

/** Options of a {@link ModelSlot}. */
export interface ModelSlotOptions {
  /** Where the model is added. */
  parent: Object3D;
  /** The simplifier (meshoptimizer's `MeshoptSimplifier.simplify`, after `ready`). Without one, `setRatio` throws. */
  simplify?: SimplifyFunction;
  /** The simplifier's error limit and border locking. Default: its own. */
  simplifier?: ModelSimplifierOptions;
  /** Called after a model is added, to place it (e.g. on the ground). */
  place?: (root: Object3D) => void;
}

/** Defaults of a {@link ModelSlot}: no simplifier, its default options, no placing. */
const MODEL_SLOT_DEFAULTS: Required<Pick<ModelSlotOptions, 'simplifier'>> = { simplifier: {} };

/** What the slot holds now. */
export interface SlotContent {
  /** The model. */
  model: LoadedModel;
  /** Its simplifier, or null when the slot has no `simplify`. */
  simplifier: ModelSimplifier | null;
}

/**
 * Holds one model at a time. Showing the next model frees the previous one's geometries,
 * materials and textures (and its kept originals), so browsing for an hour does not pile up
 * memory; {@link release} hands the current model over to someone else without freeing it.
 */
export class ModelSlot {
  private content: SlotContent | null = null;
  /** Totals freed so far, for the page's stats. */
  readonly freed: DisposedCounts = { geometries: 0, materials: 0, textures: 0 };

  private readonly options: ModelSlotOptions;

  constructor(options: ModelSlotOptions) {
    this.options = { ...options, ...withDefaults(MODEL_SLOT_DEFAULTS, options) };
  }

  /** What the slot holds now, or null. */
  get current(): SlotContent | null {
    return this.content;
  }

  /** Replaces the current model with `model`; returns what freeing the previous one released. */
  show(model: LoadedModel): DisposedCounts | null {
    const released = this.clear();
    const simplifier = this.options.simplify ? new ModelSimplifier(model.object, this.options.simplify, this.options.simplifier) : null;
    this.options.parent.add(model.object);
    this.options.place?.(model.object);
    this.content = { model, simplifier };
    return released;
  }

  /** Frees the current model, if any. */
  clear(): DisposedCounts | null {
    if (!this.content) return null;
    const { model, simplifier } = this.content;
    this.content = null;
    simplifier?.dispose();
    const counts = disposeObject3D(model.object);
    this.freed.geometries += counts.geometries;
    this.freed.materials += counts.materials;
    this.freed.textures += counts.textures;
    return counts;
  }

  /** Gives the current model away (still in the scene, no longer owned or simplified here). */
  release(): LoadedModel | null {
    if (!this.content) return null;
    const { model, simplifier } = this.content;
    this.content = null;
    simplifier?.detach(); // keep the chosen simplification, drop the originals
    return model;
  }

  /** Simplifies the current model to `ratio` of its triangles (see ModelSimplifier). */
  setRatio(ratio: number): SimplifyReport | null {
    if (!this.content) return null;
    if (!this.content.simplifier) throw new Error('this slot has no simplifier (pass `simplify` in its options)');
    return this.content.simplifier.setRatio(ratio);
  }

  /** Frees the current model. */
  dispose(): void {
    this.clear();
  }
}

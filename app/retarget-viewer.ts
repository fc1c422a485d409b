import {
  AnimationMixer,
  Color,
  DirectionalLight,
  GridHelper,
  HemisphereLight,
  LoopOnce,
  LoopRepeat,
  Mesh,
  MeshStandardMaterial,
  PlaneGeometry,
  Vector3,
  type AnimationAction,
  type AnimationClip,
  type Object3D,
} from 'three';
import { CameraRig } from '../src/world/camera-rig.ts';
import { showNotice } from '../src/world/notices.ts';
import type { Stage } from '../src/world/stage.ts';
import { createHumanoid, type Humanoid } from '../src/rig/humanoid.ts';
import { MANNEQUIN } from '../src/rig/mannequin.ts';
import { describeLoss, parseRig, refusalOf, RigLoadError, type LoadedRig } from '../src/rig/load.ts';
import { coreBoneGaps } from '../src/anim/retarget/bone-map.ts';
import { ANIMATION_LIBRARY, libraryClip, withoutRootMotion } from '../src/anim/library/index.ts';
import { ParityChecker, plausibilityFailures, type ClipParity } from '../src/anim/parity/parity-check.ts';
import { createRetargetContext, type ClipReport, type RetargetContext } from '../src/anim/retarget/retarget-clip.ts';
import { retargetLibraryAsync } from '../src/anim/retarget/retarget-library.ts';
import { rigFromDef, rigFromObject, type RigDescription } from '../src/anim/retarget/rig-description.ts';
import { createCc4Character } from '../src/anim/rigs/cc4-character.ts';
import { CC4_RIG } from '../src/anim/rigs/cc4.ts';
import { bindReferenceKey, ReferenceView } from '../src/anim/view/reference-view.ts';

/** Live figures of the retarget page, under `cairn.stats.anim`. */
export interface RetargetViewerStats {
  /** 'baking' → 'retargeting' → 'ready' (or 'failed'). */
  phase: 'baking' | 'retargeting' | 'ready' | 'failed';
  progress: { done: number; total: number };
  /** The clip source: the mannequin library, or a dropped file (mocap, a rig with clips). */
  source: string;
  target: string;
  sourceBones: number;
  targetBones: number;
  mappedBones: number;
  clips: number;
  retargeted: number;
  failed: number;
  retargetMs: number;
  ratios: { horizontal: number; vertical: number };
  clip: string | null;
  time: number;
  playing: boolean;
  reference: boolean;
  /** Parity of the clip on screen (computed when it is chosen). */
  parity: { clip: string; positionDriftMm: number; rotationDriftDeg: number; pelvisVerticalDriftMm: number; ok: boolean } | null;
  /**
   * The judgement of the pair, red on the page when not ok: unmapped core bones (hips, spine, arm and
   * leg chains), implausible ratios or units, and the failures of the clip on screen.
   */
  verdict: { ok: boolean; problems: string[] };
  /** What importing the last dropped file found (units, rigid parts, skeleton only, vertices). */
  imported: {
    file: string;
    notes: string[];
    losses: string[];
    sourceVertices: number;
    skinnedVertices: number;
    skeletonOnly: boolean;
  } | null;
  error: string | null;
}

declare module '../src/anim/view/reference-view.ts' {
  interface AnimStatsByPage {
    /** The retarget page's figures. */
    retarget: RetargetViewerStats;
  }
}

interface TargetCharacter {
  object: Object3D;
  description: RigDescription;
  dispose(): void;
}

/**
 * The retarget page: the CC4-style character (or a dropped model) playing the whole library
 * retargeted from the mannequin, a clip list, the parity figures of the clip on screen, and the
 * backslash reference view of the source mannequin playing the same clip beside it. Clips play in
 * place (root motion removed on both) so the two stay side by side.
 */
export class RetargetViewer {
  readonly stats: RetargetViewerStats;
  readonly source: Humanoid;
  readonly reference: ReferenceView;
  target: TargetCharacter;
  context: RetargetContext | null = null;
  clips: AnimationClip[] = [];
  reports: ClipReport[] = [];
  private sourceClips: AnimationClip[] = [];
  /** The clip source's rig: the mannequin, or a dropped clip-source file. */
  private sourceRig: RigDescription = rigFromDef(MANNEQUIN);
  private mixer: AnimationMixer;
  private action: AnimationAction | null = null;
  private readonly cameraRig: CameraRig;
  private readonly list: HTMLSelectElement;
  private readonly progressBar: HTMLElement;
  private readonly disposers: Array<() => void> = [];
  private checker: ParityChecker | null = null;
  private readonly focus = new Vector3();

  private readonly stage: Stage;

  constructor(stage: Stage) {
    this.stage = stage;
    const { scene } = stage;
    scene.background = new Color(0.55, 0.63, 0.72);
    scene.add(new HemisphereLight(new Color(0.75, 0.82, 1), new Color(0.3, 0.26, 0.2), 1.3));
    const sun = new DirectionalLight(new Color(1, 0.96, 0.88), 2.6);
    sun.position.set(-3, 6, 5);
    sun.castShadow = true;
    Object.assign(sun.shadow.camera, { left: -4, right: 4, top: 4, bottom: -4, near: 0.5, far: 20 });
    sun.shadow.mapSize.set(1024, 1024);
    scene.add(sun);
    const floor = new Mesh(new PlaneGeometry(30, 30), new MeshStandardMaterial({ color: new Color(0.36, 0.4, 0.36), roughness: 0.95 }));
    floor.rotation.x = -Math.PI / 2;
    floor.receiveShadow = true;
    floor.name = 'floor';
    scene.add(floor, new GridHelper(30, 30, 0x44524a, 0x44524a));
    this.disposers.push(() => {
      floor.geometry.dispose();
      (floor.material as MeshStandardMaterial).dispose();
    });

    const cc4 = createCc4Character();
    this.target = { object: cc4.object, description: rigFromDef(CC4_RIG), dispose: () => cc4.dispose() };
    scene.add(this.target.object);
    this.mixer = new AnimationMixer(this.target.object);
    this.source = createHumanoid();
    this.source.object.name = 'reference-mannequin';
    scene.add(this.source.object);
    this.reference = new ReferenceView({
      source: this.source.object,
      resolveClip: (name) => this.sourceClips.find((c) => c.name === name) ?? null,
    });

    this.cameraRig = new CameraRig(stage.camera, stage.canvas, { distance: 4.2, pitch: 0.12, lookHeight: 1.0, yaw: Math.PI - 0.35 });

    this.stats = {
      phase: 'baking',
      progress: { done: 0, total: ANIMATION_LIBRARY.length },
      source: 'library',
      target: CC4_RIG.name,
      sourceBones: MANNEQUIN.bones.length,
      targetBones: CC4_RIG.bones.length,
      mappedBones: 0,
      clips: ANIMATION_LIBRARY.length,
      retargeted: 0,
      failed: 0,
      retargetMs: 0,
      ratios: { horizontal: 1, vertical: 1 },
      clip: null,
      time: 0,
      playing: true,
      reference: false,
      parity: null,
      verdict: { ok: true, problems: [] },
      imported: null,
      error: null,
    };
    stage.cairn.stats.anim = this.stats;

    ({ list: this.list, bar: this.progressBar } = this.buildControls());
    this.disposers.push(bindReferenceKey(() => this.toggleReference()));
    const onKey = (event: KeyboardEvent): void => {
      if ((event.target as HTMLElement).tagName === 'SELECT') return;
      if (event.code === 'Space') {
        event.preventDefault();
        this.setPlaying(!this.stats.playing);
      } else if (event.code === 'ArrowRight' || event.code === 'ArrowLeft') {
        const step = event.code === 'ArrowRight' ? 1 : -1;
        const names = this.clips.map((c) => c.name);
        const next = names[(names.indexOf(this.stats.clip ?? '') + step + names.length) % names.length];
        if (next) this.play(next);
      }
    };
    window.addEventListener('keydown', onKey);
    this.disposers.push(() => window.removeEventListener('keydown', onKey));
    this.disposers.push(this.installDrop());

    stage.hud?.addSection('anim', { title: 'Retarget', rows: (s) => rows(s.anim as RetargetViewerStats) });
    stage.onFrame((dt) => this.frame(dt));
  }

  /** Bakes the library (with progress), retargets it onto the current target, starts playing. */
  async start(): Promise<void> {
    // Bake clip by clip, yielding, so the progress bar moves.
    this.stats.phase = 'baking';
    for (const [i, def] of ANIMATION_LIBRARY.entries()) {
      this.sourceClips.push(withoutRootMotion(libraryClip(def.name)));
      this.setProgress(i + 1, ANIMATION_LIBRARY.length);
      if (i % 4 === 3) await new Promise((resolve) => setTimeout(resolve, 0));
    }
    await this.retargetOnto(this.target);
  }

  /** Plays a clip by name on the target (and the reference). Throws for unknown names. */
  play(name: string): void {
    const clip = this.clips.find((c) => c.name === name);
    if (!clip) throw new Error(`no retargeted clip "${name}" (have: ${this.clips.map((c) => c.name).join(', ')})`);
    this.mixer.stopAllAction();
    const loop = (clip.userData as { loop?: boolean }).loop !== false;
    this.action = this.mixer.clipAction(clip);
    this.action.setLoop(loop ? LoopRepeat : LoopOnce, Infinity);
    this.action.clampWhenFinished = !loop;
    this.action.play();
    this.stats.clip = name;
    this.stats.time = 0;
    this.list.value = name;
    this.pose();
    this.measureParity(name);
  }

  /** Pauses or resumes playback. */
  setPlaying(playing: boolean): void {
    this.stats.playing = playing;
  }

  /** Jumps to a time in the current clip and poses both characters there now. */
  setTime(seconds: number): void {
    this.stats.time = Math.max(0, seconds);
    this.pose();
  }

  toggleReference(show?: boolean): boolean {
    this.stats.reference = this.reference.toggle(show);
    this.pose();
    return this.stats.reference;
  }

  /**
   * A dropped or chosen file: a skeleton without a mesh (BVH, mocap FBX, a bones-only glTF) becomes
   * the clip source; a character becomes the target.
   */
  async loadFile(data: ArrayBuffer, name: string): Promise<void> {
    const loaded = await this.parse(data, name, 'Cannot load');
    if (!loaded) return;
    if (loaded.report.skeletonOnly) await this.useSource(loaded, name);
    else await this.useTarget(loaded, name);
  }

  /** Retargets the clip source onto a model file and shows it instead of the CC4. */
  async loadTarget(data: ArrayBuffer, name: string): Promise<void> {
    const loaded = await this.parse(data, name, 'Cannot retarget onto');
    if (loaded) await this.useTarget(loaded, name);
  }

  /** Uses a file's clips (mocap, or a rig with clips) as the clip source instead of the library. */
  async loadSource(data: ArrayBuffer, name: string): Promise<void> {
    const loaded = await this.parse(data, name, 'Cannot use the clips of');
    if (loaded) await this.useSource(loaded, name);
  }

  private async parse(data: ArrayBuffer, name: string, title: string): Promise<LoadedRig | null> {
    try {
      const loaded = await parseRig(data, name);
      this.stats.imported = {
        file: name,
        notes: loaded.report.notes,
        // What the import could not carry (a missing texture), in the import layer's words.
        losses: loaded.report.losses.map(describeLoss),
        sourceVertices: loaded.report.sourceVertices,
        skinnedVertices: loaded.report.skinnedVertices,
        skeletonOnly: loaded.report.skeletonOnly,
      };
      return loaded;
    } catch (error) {
      this.fail(`${title} ${name}`, name, error as Error);
      return null;
    }
  }

  private fail(title: string, name: string, error: Error): void {
    // The import layer's words (src/rig/import/errors.ts), as in the crowd, the world and the commands.
    this.stats.error = refusalOf(error, name).message;
    showNotice({ level: 'error', title, detail: this.stats.error });
  }

  private async useTarget(loaded: LoadedRig, name: string): Promise<void> {
    try {
      if (loaded.report.skeletonOnly) throw RigLoadError.because('no-mesh', name, { bones: loaded.bones.length });
      const next: TargetCharacter = {
        object: loaded.object,
        description: rigFromObject(loaded.object, name.replace(/\.[^.]+$/, ''), loaded.bones),
        dispose: () => {
          loaded.object.removeFromParent();
          for (const mesh of loaded.skinnedMeshes) {
            mesh.geometry.dispose();
            for (const material of [mesh.material].flat()) material.dispose();
          }
        },
      };
      // Build the context first: a rig that cannot be retargeted leaves the current one in place.
      createRetargetContext(this.sourceRig, next.description, { rootMotion: 'in-place' });
      this.stage.scene.remove(this.target.object);
      this.target.dispose();
      this.target = next;
      this.stage.scene.add(next.object);
      this.mixer.stopAllAction();
      this.mixer = new AnimationMixer(next.object);
      this.stats.target = next.description.name;
      this.stats.targetBones = next.description.bones.length;
      this.stats.error = null;
      if (loaded.report.notes.length)
        showNotice({
          level: loaded.report.losses.length ? 'warn' : 'info',
          title: `Imported ${name}`,
          detail: loaded.report.notes.join('\n'),
        });
      await this.retargetOnto(next);
    } catch (error) {
      this.fail(`Cannot retarget onto ${name}`, name, error as Error);
    }
  }

  private async useSource(loaded: LoadedRig, name: string): Promise<void> {
    try {
      if (loaded.clips.length === 0) throw new Error(`${name} carries no animation clips to retarget`);
      const description = rigFromObject(loaded.object, name.replace(/\.[^.]+$/, ''), loaded.bones);
      createRetargetContext(description, this.target.description, { rootMotion: 'in-place' });
      this.sourceRig = description;
      this.sourceClips = loaded.clips.map((clip) => {
        // Mocap clips loop unless they say otherwise; the page plays everything in place.
        if ((clip.userData as { loop?: boolean } | undefined)?.loop === undefined) clip.userData = { ...clip.userData, loop: true };
        return clip;
      });
      // The reference view shows the mannequin library; a file source has no mannequin to show.
      this.toggleReference(false);
      this.stats.source = name;
      this.stats.sourceBones = description.bones.length;
      this.stats.error = null;
      this.stats.clips = this.sourceClips.length;
      if (loaded.report.notes.length)
        showNotice({
          level: loaded.report.losses.length ? 'warn' : 'info',
          title: `Clip source ${name}`,
          detail: loaded.report.notes.join('\n'),
        });
      await this.retargetOnto(this.target);
    } catch (error) {
      this.fail(`Cannot use the clips of ${name}`, name, error as Error);
    }
  }

  private async retargetOnto(target: TargetCharacter): Promise<void> {
    this.stats.phase = 'retargeting';
    const context = createRetargetContext(this.sourceRig, target.description, { rootMotion: 'in-place' });
    this.context = context;
    const problems = [...coreBoneGaps(context.mapping, this.sourceRig.name, target.description.name), ...plausibilityFailures(context)];
    this.stats.verdict = { ok: problems.length === 0, problems };
    if (problems.length)
      showNotice({
        level: 'error',
        title: `${this.sourceRig.name} → ${target.description.name} cannot be trusted`,
        detail: problems.join('\n'),
      });
    this.checker = new ParityChecker(context);
    this.stats.mappedBones = context.mapping.pairs.length;
    this.stats.ratios = { horizontal: context.ratios.horizontal, vertical: context.ratios.vertical };
    const result = await retargetLibraryAsync(this.sourceClips, context, {
      onProgress: ({ done, total }) => this.setProgress(done, total ?? done),
    });
    this.clips = result.clips;
    this.reports = result.reports;
    this.stats.retargeted = result.clips.length;
    this.stats.failed = result.reports.filter((r) => !r.ok).length;
    this.stats.retargetMs = result.ms;
    for (const report of result.reports.filter((r) => !r.ok))
      showNotice({ level: 'warn', title: `Clip ${report.clip} did not retarget`, detail: report.error });
    this.list.replaceChildren(
      ...result.clips.map((clip) => new Option(`${clip.name} — ${(clip.userData as { category?: string }).category ?? ''}`, clip.name)),
    );
    this.progressBar.parentElement!.hidden = true;
    this.stats.phase = 'ready';
    if (result.clips.length) this.play(result.clips.some((c) => c.name === 'walk_fwd') ? 'walk_fwd' : result.clips[0]!.name);
  }

  private setProgress(done: number, total: number): void {
    this.stats.progress = { done, total };
    this.progressBar.style.width = `${Math.round((done / Math.max(1, total)) * 100)}%`;
    this.progressBar.parentElement!.dataset.label = `${this.stats.phase === 'baking' ? 'Baking the library' : 'Retargeting'} ${done}/${total}`;
  }

  private frame(dt: number): void {
    if (this.stats.playing && this.action) {
      this.stats.time += dt;
      this.pose();
    }
    // With the reference shown, frame both characters: look between them.
    this.focus.copy(this.target.object.position);
    if (this.reference.visible) this.focus.x += 0.55;
    this.cameraRig.update(this.focus, () => 0);
  }

  /** Poses the target and the reference at the current time. */
  private pose(): void {
    if (!this.action) return;
    const duration = this.action.getClip().duration;
    const looping = this.action.loop === LoopRepeat;
    const time = looping && duration > 0 ? this.stats.time % duration : Math.min(this.stats.time, duration);
    this.action.time = time;
    this.mixer.update(0);
    this.target.object.updateMatrixWorld(true);
    this.reference.update({ x: 0, y: 0, z: 0, facing: 0, clip: this.stats.clip, time });
    if (this.reference.visible) this.source.object.updateMatrixWorld(true);
  }

  private measureParity(name: string): void {
    const source = this.sourceClips.find((c) => c.name === name);
    const target = this.clips.find((c) => c.name === name);
    if (!this.checker || !source || !target) return;
    const parity: ClipParity = this.checker.check(source, target);
    this.stats.parity = {
      clip: name,
      positionDriftMm: parity.positionDrift.value * 1000,
      rotationDriftDeg: parity.rotationDriftDeg.value,
      pelvisVerticalDriftMm: parity.pelvisVerticalDrift * 1000,
      ok: parity.ok,
    };
    const pairProblems = this.stats.verdict.problems.filter((p) => !p.startsWith('clip '));
    const problems = [...pairProblems, ...parity.failures.map((f) => `clip ${name}: ${f}`)];
    this.stats.verdict = { ok: problems.length === 0, problems };
  }

  private buildControls(): { list: HTMLSelectElement; bar: HTMLElement } {
    const style = document.createElement('style');
    style.textContent = `
.anim-panel { position: fixed; top: 10px; right: 10px; z-index: 10; display: flex; flex-direction: column; gap: 6px;
  font: 12px system-ui, sans-serif; background: rgba(12,18,24,.72); padding: 8px; border-radius: 6px; color: #e8edf2; }
.anim-panel select { width: 190px; font: 12px ui-monospace, monospace; }
.anim-progress { position: relative; height: 16px; background: rgba(255,255,255,.12); border-radius: 3px; overflow: hidden; }
.anim-progress::after { content: attr(data-label); position: absolute; inset: 0; text-align: center; line-height: 16px; }
.anim-progress > div { height: 100%; width: 0; background: #3c8d5a; }`;
    document.head.append(style);
    const panel = document.createElement('div');
    panel.className = 'anim-panel';
    const progress = document.createElement('div');
    progress.className = 'anim-progress';
    progress.dataset.label = 'Baking the library';
    const bar = document.createElement('div');
    progress.append(bar);
    const list = document.createElement('select');
    list.size = 10;
    list.setAttribute('aria-label', 'Clip');
    list.addEventListener('change', () => this.play(list.value));
    const file = document.createElement('input');
    file.type = 'file';
    file.accept = '.glb,.gltf,.fbx,.bvh';
    file.title = 'A character to retarget onto, or mocap (BVH, skeleton-only FBX/glTF) as the clip source';
    file.addEventListener('change', () => {
      const chosen = file.files?.[0];
      if (chosen) void chosen.arrayBuffer().then((data) => this.loadFile(data, chosen.name));
    });
    panel.append(progress, list, file);
    document.body.append(panel);
    this.disposers.push(() => {
      panel.remove();
      style.remove();
    });
    return { list, bar };
  }

  private installDrop(): () => void {
    const over = (event: DragEvent): void => event.preventDefault();
    const drop = (event: DragEvent): void => {
      event.preventDefault();
      const chosen = event.dataTransfer?.files[0];
      if (chosen) void chosen.arrayBuffer().then((data) => this.loadFile(data, chosen.name));
    };
    window.addEventListener('dragover', over);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragover', over);
      window.removeEventListener('drop', drop);
    };
  }

  dispose(): void {
    for (const dispose of this.disposers) dispose();
    this.mixer.stopAllAction();
    this.reference.dispose();
    this.source.dispose();
    this.target.dispose();
    this.cameraRig.dispose();
  }
}

function rows(s: RetargetViewerStats | undefined): Array<{ label: string; value: string; tone?: 'ok' | 'warn' | 'bad' }> {
  if (!s) return [];
  if (s.phase !== 'ready')
    return [
      { label: s.phase, value: `${s.progress.done}/${s.progress.total}` },
      ...(s.error ? [{ label: 'error', value: s.error, tone: 'bad' as const }] : []),
    ];
  return [
    { label: 'verdict', value: s.verdict.ok ? 'ok' : s.verdict.problems[0]!, tone: s.verdict.ok ? ('ok' as const) : ('bad' as const) },
    { label: 'source', value: `${s.source} (${s.sourceBones} bones)` },
    { label: 'target', value: `${s.target} (${s.targetBones} bones)` },
    { label: 'mapped', value: `${s.mappedBones} of ${s.sourceBones} source bones` },
    { label: 'clips', value: `${s.retargeted}/${s.clips} in ${s.retargetMs.toFixed(0)} ms`, tone: s.failed ? 'warn' : 'ok' },
    { label: 'ratios', value: `h ${s.ratios.horizontal.toFixed(3)} · v ${s.ratios.vertical.toFixed(3)}` },
    { label: 'clip', value: `${s.clip ?? '—'} ${s.playing ? '' : '(paused)'}` },
    ...(s.parity
      ? [
          {
            label: 'drift',
            value: `${s.parity.positionDriftMm.toFixed(3)} mm · ${s.parity.rotationDriftDeg.toFixed(3)}°`,
            tone: s.parity.ok ? ('ok' as const) : ('bad' as const),
          },
        ]
      : []),
    { label: 'reference (\\)', value: s.reference ? 'source shown' : 'off' },
    ...(s.error ? [{ label: 'error', value: s.error, tone: 'bad' as const }] : []),
  ];
}

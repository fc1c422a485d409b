import { Vector3, type Camera } from 'three';
import { withDefaults } from '../../core/options.ts';
import type { PeerProfile } from '../protocol/profile.ts';
import type { AvatarDetail, RemoteAvatar, RemotePeerView } from './remote-peer-view.ts';

/** Options of a {@link NameTagView}. */
export interface NameTagViewOptions {
  /** The view that draws the players; every call is passed on to it. */
  view: RemotePeerView;
  /** The camera the names are projected through (read every frame). */
  camera: Camera;
  /** The element over the canvas the labels go into (positioned from its top left). Default document.body. */
  container?: HTMLElement;
  /** Names farther from the camera than this (m) are hidden. Default 30. */
  maxDistance?: number;
  /** Height of a label above a player's feet (m). Default 2.1 (above the humanoid's head). */
  height?: number;
}

const NAME_TAG_DEFAULTS: Required<Omit<NameTagViewOptions, 'view' | 'camera' | 'container'>> = { maxDistance: 30, height: 2.1 };

/** One name on screen, as {@link NameTagView.visible} reports it. */
export interface ShownNameTag {
  /** The player's id. */
  id: number;
  /** The player's display name. */
  name: string;
  /** Pixels from the container's top left. */
  x: number;
  /** Pixels from the container's top. */
  y: number;
  /** Metres from the camera. */
  distance: number;
}

/** What a {@link NameTagView} publishes (`cairn.stats.nameTags`). */
export interface NameTagStats {
  /** Players with a known name, and how many of those are labelled on screen now. */
  named: number;
  /** Names labelled on screen now. */
  shown: number;
  /** Hidden because behind the camera, or beyond {@link NameTagViewOptions.maxDistance}. */
  behind: number;
  /** Hidden because farther than {@link NameTagViewOptions.maxDistance}. */
  far: number;
}

class TaggedAvatar implements RemoteAvatar {
  readonly id: number;
  readonly inner: RemoteAvatar;
  x = 0;
  y = 0;
  z = 0;
  name: string | null = null;
  label: HTMLDivElement | null = null;
  private readonly view: NameTagView;

  constructor(id: number, inner: RemoteAvatar, view: NameTagView) {
    this.id = id;
    this.inner = inner;
    this.view = view;
  }

  setTransform(x: number, y: number, z: number, facing: number): void {
    this.x = x;
    this.y = y;
    this.z = z;
    this.inner.setTransform(x, y, z, facing);
  }

  play(state: string, speed: number): void {
    this.inner.play(state, speed);
  }

  setDetail(detail: AvatarDetail): void {
    this.inner.setDetail?.(detail);
  }

  setProfile(profile: PeerProfile): void {
    this.name = profile.name;
    // textContent, never markup: a name is whatever another visitor typed (checked, but still theirs).
    if (this.label) this.label.textContent = profile.name;
    this.inner.setProfile?.(profile);
  }

  remove(): void {
    this.view.forget(this);
    this.inner.remove();
  }
}

/**
 * Display names above remote players: a decorator over any {@link RemotePeerView} (the crowd's or
 * the humanoid one) that keeps each player's position and name and, every frame, projects the
 * names through the camera into small DOM labels over the canvas — no textures, no draw calls.
 * A name behind the camera or farther than `maxDistance` is hidden; nearer names are a little
 * more opaque. Labels are plain text nodes, so a name can never inject markup.
 */
export class NameTagView implements RemotePeerView {
  /** The element holding every label (class `cairn-name-tags`). */
  readonly element: HTMLDivElement;
  /** How many names are known, shown and hidden, refreshed every {@link update}. */
  readonly stats: NameTagStats = { named: 0, shown: 0, behind: 0, far: 0 };
  /** The view that draws the avatars under the labels. */
  readonly inner: RemotePeerView;
  private readonly options: Required<Omit<NameTagViewOptions, 'view' | 'camera' | 'container'>>;
  private readonly camera: Camera;
  private readonly container: HTMLElement;
  private readonly avatars = new Map<number, TaggedAvatar>();
  private readonly point = new Vector3();
  private readonly cameraPosition = new Vector3();

  constructor(options: NameTagViewOptions) {
    this.options = withDefaults(NAME_TAG_DEFAULTS, { maxDistance: options.maxDistance, height: options.height });
    this.inner = options.view;
    this.camera = options.camera;
    this.container = options.container ?? document.body;
    this.element = document.createElement('div');
    this.element.className = 'cairn-name-tags';
    Object.assign(this.element.style, { position: 'fixed', inset: '0', pointerEvents: 'none', overflow: 'hidden', zIndex: '2' });
    this.container.append(this.element);
  }

  get count(): number {
    return this.inner.count;
  }

  add(id: number): RemoteAvatar {
    this.avatars.get(id)?.remove();
    const avatar = new TaggedAvatar(id, this.inner.add(id), this);
    this.avatars.set(id, avatar);
    return avatar;
  }

  /** Advances the inner view, then places every label over its player. */
  update(dt: number): void {
    this.inner.update(dt);
    const camera = this.camera;
    camera.updateMatrixWorld();
    this.cameraPosition.setFromMatrixPosition(camera.matrixWorld);
    const width = this.element.clientWidth || window.innerWidth;
    const height = this.element.clientHeight || window.innerHeight;
    const stats = this.stats;
    stats.named = stats.shown = stats.behind = stats.far = 0;
    for (const avatar of this.avatars.values()) {
      if (avatar.name === null) continue;
      stats.named++;
      const p = this.point.set(avatar.x, avatar.y + this.options.height, avatar.z);
      const distance = p.distanceTo(this.cameraPosition);
      let hidden: 'behind' | 'far' | null = distance > this.options.maxDistance ? 'far' : null;
      if (!hidden) {
        p.project(camera);
        // Behind the camera, projection mirrors the point: z beyond 1 (or below −1) in clip space.
        if (p.z > 1 || p.z < -1 || Math.abs(p.x) > 1.2 || Math.abs(p.y) > 1.2) hidden = 'behind';
      }
      if (hidden) {
        stats[hidden]++;
        if (avatar.label) avatar.label.style.display = 'none';
        continue;
      }
      const label = this.labelOf(avatar);
      label.style.display = '';
      const x = ((p.x + 1) / 2) * width;
      const y = ((1 - p.y) / 2) * height;
      label.style.transform = `translate(${x.toFixed(1)}px, ${y.toFixed(1)}px) translate(-50%, -100%)`;
      label.style.opacity = String(Math.max(0.45, 1 - distance / this.options.maxDistance / 2));
      label.dataset.x = x.toFixed(0);
      label.dataset.y = y.toFixed(0);
      label.dataset.distance = distance.toFixed(1);
      stats.shown++;
    }
  }

  /** The labels on screen now, with where they are (for tests and the console). */
  visible(): ShownNameTag[] {
    const out: ShownNameTag[] = [];
    for (const avatar of this.avatars.values()) {
      const label = avatar.label;
      if (!label || label.style.display === 'none' || avatar.name === null) continue;
      out.push({
        id: avatar.id,
        name: avatar.name,
        x: Number(label.dataset.x),
        y: Number(label.dataset.y),
        distance: Number(label.dataset.distance),
      });
    }
    return out;
  }

  /** @internal Called by an avatar's remove(). */
  forget(avatar: TaggedAvatar): void {
    avatar.label?.remove();
    avatar.label = null;
    if (this.avatars.get(avatar.id) === avatar) this.avatars.delete(avatar.id);
  }

  /** Removes every label and its element, and disposes the inner view. */
  dispose(): void {
    for (const avatar of [...this.avatars.values()]) avatar.remove();
    this.inner.dispose();
    this.element.remove();
  }

  private labelOf(avatar: TaggedAvatar): HTMLDivElement {
    if (avatar.label) return avatar.label;
    const label = document.createElement('div');
    label.className = 'cairn-name-tag';
    label.textContent = avatar.name;
    Object.assign(label.style, {
      position: 'absolute',
      left: '0',
      top: '0',
      padding: '1px 6px',
      borderRadius: '8px',
      background: 'rgba(16, 20, 28, 0.62)',
      color: '#f4f6fa',
      font: '600 12px/1.35 system-ui, sans-serif',
      whiteSpace: 'nowrap',
      maxWidth: '14em',
      overflow: 'hidden',
      textOverflow: 'ellipsis',
      unicodeBidi: 'isolate',
    });
    this.element.append(label);
    avatar.label = label;
    return label;
  }
}

declare module '../../world/services.ts' {
  interface WorldServices {
    /** Display names over the remote players (app/world-plugins/net.ts). */
    nameTags: NameTagView;
  }
}

declare module '../../world/cairn-global.ts' {
  interface CairnStats {
    /** Display names over remote players (src/net/view/name-tags.ts). */
    nameTags?: NameTagStats;
  }
}

import { CapsuleGeometry, ConeGeometry, Group, Mesh, MeshStandardMaterial, type Object3D } from 'three';
import type { HudRow } from '../hud.ts';
import type { PlayerState } from './player-controller.ts';

/**
 * What the world needs of the local player's character: a scene object, placed and animated from
 * the controller's state every frame. The world names no character module; a page hands it one
 * (Cairn's world page: the avatar module's `PlayerAvatar`) with `player.setCharacter`.
 */
export interface PlayerCharacter {
  /** The scene handle, placed at the player's feet by {@link update}. */
  readonly object: Object3D;
  /** The clip playing now (`stats.player.clip`, the HUD), or '' for a character without clips. */
  readonly clipName: string;
  /** Places and animates the character for the controller's state; `dt` in seconds. */
  update(state: PlayerState, dt: number): void;
  /** Rows the HUD's Player section shows about the character (what is drawn, loading, refused). */
  hudRows?(): HudRow[];
  /** Removes the character from the scene and frees what it owns. */
  dispose(): void;
}

/**
 * The character a world starts with until a page sets its own: a plain capsule with a nose that
 * shows where the player is and which way it faces.
 */
export class PlaceholderCharacter implements PlayerCharacter {
  readonly object = new Group();
  readonly clipName = '';
  private readonly material = new MeshStandardMaterial({ color: 0x6f8fa8, roughness: 0.7 });
  private readonly body = new Mesh(new CapsuleGeometry(0.3, 1.1, 4, 12), this.material);
  private readonly nose = new Mesh(new ConeGeometry(0.1, 0.25, 10), this.material);

  constructor() {
    this.object.name = 'player-placeholder';
    this.body.position.y = 0.85;
    this.nose.rotation.x = Math.PI / 2;
    this.nose.position.set(0, 1.45, 0.32);
    this.body.castShadow = this.nose.castShadow = true;
    this.object.add(this.body, this.nose);
  }

  update(state: PlayerState): void {
    this.object.position.set(state.x, state.y, state.z);
    this.object.rotation.y = state.facing;
  }

  /** Removes the capsule from the scene and frees its geometry and material. */
  dispose(): void {
    this.object.removeFromParent();
    this.body.geometry.dispose();
    this.nose.geometry.dispose();
    this.material.dispose();
  }
}

import type { PlayerInput } from './player-controller.ts';
import { isTyping } from '../../core/typing.ts';

/**
 * Keyboard state for WASD/arrow movement, Shift to run, Space to jump. Keys are tracked by `code`
 * (layout-independent). Ignores keys typed into form fields.
 */
export class KeyboardInput {
  private readonly down = new Set<string>();
  private jumpQueued = false;
  private readonly target: Window;

  constructor(target: Window = window) {
    this.target = target;
    target.addEventListener('keydown', this.onKeyDown);
    target.addEventListener('keyup', this.onKeyUp);
    target.addEventListener('blur', this.onBlur);
  }

  /** The movement request for this frame; a Space press is delivered once. */
  read(): PlayerInput {
    const axis = (plus: string[], minus: string[]): number =>
      (plus.some((c) => this.down.has(c)) ? 1 : 0) - (minus.some((c) => this.down.has(c)) ? 1 : 0);
    const input: PlayerInput = {
      forward: axis(['KeyW', 'ArrowUp'], ['KeyS', 'ArrowDown']),
      right: axis(['KeyD', 'ArrowRight'], ['KeyA', 'ArrowLeft']),
      run: this.down.has('ShiftLeft') || this.down.has('ShiftRight'),
      jump: this.jumpQueued,
    };
    this.jumpQueued = false;
    return input;
  }

  /** Whether the key with this `KeyboardEvent.code` is held now. */
  isDown(code: string): boolean {
    return this.down.has(code);
  }

  /** Removes the keyboard listeners. */
  dispose(): void {
    this.target.removeEventListener('keydown', this.onKeyDown);
    this.target.removeEventListener('keyup', this.onKeyUp);
    this.target.removeEventListener('blur', this.onBlur);
  }

  private readonly onKeyDown = (event: KeyboardEvent): void => {
    if (isTyping(event)) return;
    if (event.code === 'Space' && !event.repeat) this.jumpQueued = true;
    this.down.add(event.code);
  };

  private readonly onKeyUp = (event: KeyboardEvent): void => {
    this.down.delete(event.code);
  };

  /** Releasing keys while the window is unfocused would otherwise leave them stuck. */
  private readonly onBlur = (): void => {
    this.down.clear();
  };
}

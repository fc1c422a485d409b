import { isTyping } from '../core/typing.ts';

/** What the engine's page bindings call. */
export interface AudioInputHandlers {
  /** A pointerdown or keydown while listening for the gesture that starts sound. */
  gesture(): void;
  /** The mute key was pressed (not while typing, not a key repeat). */
  toggleMute(): void;
  /** document.visibilityState changed. */
  visibility(): void;
}

/** Options of the engine's page bindings. */
export interface AudioInputOptions {
  /** Where the gesture and mute-key listeners go. */
  target: Window;
  /** Whose visibility changes are heard. */
  document: Document;
  /** KeyboardEvent.code that toggles mute, or null for none. */
  muteKey: string | null;
}

/**
 * The engine's page listeners: the start gesture (pointerdown/keydown in the capture phase, so a
 * game handler that stops propagation cannot keep sound off), the mute key and tab visibility.
 */
export class AudioInputBindings {
  private listening = false;
  private disposed = false;

  private readonly options: AudioInputOptions;
  private readonly handlers: AudioInputHandlers;

  constructor(options: AudioInputOptions, handlers: AudioInputHandlers) {
    this.options = options;
    this.handlers = handlers;
    if (options.muteKey !== null) options.target.addEventListener('keydown', this.onMuteKey);
    options.document.addEventListener('visibilitychange', this.onVisibility);
  }

  /** Whether the tab is hidden now. */
  get hidden(): boolean {
    return this.options.document.visibilityState === 'hidden';
  }

  /** Starts listening for the next gesture (no-op while already listening). */
  listenForGesture(): void {
    if (this.listening || this.disposed) return;
    this.listening = true;
    this.options.target.addEventListener('pointerdown', this.onGesture, true);
    this.options.target.addEventListener('keydown', this.onGesture, true);
  }

  /** Stops listening for the gesture that starts sound (it came). */
  stopListeningForGesture(): void {
    if (!this.listening) return;
    this.listening = false;
    this.options.target.removeEventListener('pointerdown', this.onGesture, true);
    this.options.target.removeEventListener('keydown', this.onGesture, true);
  }

  /** Removes every listener. */
  dispose(): void {
    if (this.disposed) return;
    this.stopListeningForGesture();
    this.disposed = true;
    this.options.target.removeEventListener('keydown', this.onMuteKey);
    this.options.document.removeEventListener('visibilitychange', this.onVisibility);
  }

  private readonly onGesture = (): void => this.handlers.gesture();

  private readonly onMuteKey = (event: KeyboardEvent): void => {
    if (event.code !== this.options.muteKey || event.repeat || isTyping(event)) return;
    this.handlers.toggleMute();
  };

  private readonly onVisibility = (): void => this.handlers.visibility();
}

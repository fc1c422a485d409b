import { withDefaults } from '../core/options.ts';
import { isTyping } from '../core/typing.ts';
import { worldDock } from '../world/dock.ts';
import { Emitter } from '../core/emitter.ts';
import type { VoiceChat } from './voice-chat.ts';

// Its buttons are dock tools (.cairn-tool, src/world/dock.ts); the group goes last in the toolbar.
const STYLE = `
.cairn-voice { display: flex; gap: 6px; flex-wrap: wrap; justify-content: flex-end; order: 10; }
.cairn-voice button[data-kind="dump"] { background: #7a2f2f; border-color: #a44; }
.cairn-voice button[hidden] { display: none; }
`;

/** Options of a {@link VoicePanel}. */
export interface VoicePanelOptions {
  /** Joins voice (builds and joins a VoiceChat); called by the Join button. */
  join(): Promise<VoiceChat>;
  /** Where the buttons go. Default the page's dock toolbar (the right column's top; src/world/dock.ts). */
  parent?: HTMLElement;
  /** Key held for push-to-talk (KeyboardEvent.code). Default 'KeyV'. */
  pushToTalkKey?: string;
}

/** Defaults of a {@link VoicePanel}: push-to-talk on V; the parent is the dock toolbar, found when the panel is built. */
const VOICE_PANEL_DEFAULTS: Required<Pick<VoicePanelOptions, 'pushToTalkKey'>> = { pushToTalkKey: 'KeyV' };

/** What a {@link VoicePanel} emits on its `events`. */
export type VoicePanelEvents = {
  /** Leave disposed the chat. */
  left: VoiceChat;
};

/**
 * The voice controls: Join/Leave, push-to-talk vs open mic, the five-second delay and its Dump
 * button; holding V talks. Shared by the voice page and the world. Reads state from the chat's
 * stats, so the buttons and the HUD never disagree.
 */
export class VoicePanel {
  /** What the panel emits: `left` when Leave disposed the chat. */
  readonly events = new Emitter<VoicePanelEvents>();
  /** The panel's element. */
  readonly element: HTMLElement;
  /** The chat it joined, or null before Join and after Leave. */
  voice: VoiceChat | null = null;
  private readonly buttons: Record<'join' | 'mode' | 'talk' | 'delay' | 'dump', HTMLButtonElement>;
  private readonly key: string;
  private readonly timer: number;
  private joining = false;

  private readonly options: Required<VoicePanelOptions>;

  constructor(options: VoicePanelOptions) {
    this.options = withDefaults({ ...VOICE_PANEL_DEFAULTS, join: options.join, parent: options.parent ?? worldDock().tools }, options);
    this.key = this.options.pushToTalkKey;
    const style = document.createElement('style');
    style.textContent = STYLE;
    document.head.append(style);
    this.element = document.createElement('div');
    this.element.className = 'cairn-voice';
    this.element.setAttribute('role', 'toolbar');
    this.element.setAttribute('aria-label', 'Voice chat');
    const make = (kind: keyof VoicePanel['buttons'], label: string, onClick: () => void): HTMLButtonElement => {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'cairn-tool';
      button.dataset.kind = kind;
      button.textContent = label;
      button.addEventListener('click', onClick);
      // Buttons must not keep focus: Space/WASD would then click them instead of moving the player.
      button.addEventListener('mouseup', () => button.blur());
      this.element.append(button);
      return button;
    };
    this.buttons = {
      talk: make('talk', 'Hold to talk (V)', () => undefined),
      mode: make('mode', 'Open mic', () => this.voice?.setMode(this.voice.stats.ptt.mode === 'open' ? 'push-to-talk' : 'open')),
      delay: make('delay', 'Delay 5 s', () => this.voice?.setDelay(!this.voice.stats.delay.enabled)),
      dump: make('dump', 'Dump', () => this.voice?.dump()),
      join: make('join', 'Join voice', () => void this.toggleJoin()),
    };
    this.buttons.talk.addEventListener('pointerdown', () => this.voice?.press());
    for (const type of ['pointerup', 'pointerleave', 'pointercancel'])
      this.buttons.talk.addEventListener(type, () => this.voice?.release());
    this.options.parent.append(this.element);
    window.addEventListener('keydown', this.onKeyDown);
    window.addEventListener('keyup', this.onKeyUp);
    window.addEventListener('blur', this.onBlur);
    this.timer = window.setInterval(() => this.refresh(), 250);
    this.refresh();
  }

  /** Joins as if the button were pressed. */
  async joinNow(): Promise<VoiceChat> {
    if (this.voice) return this.voice;
    this.joining = true;
    this.refresh();
    try {
      this.voice = await this.options.join();
      return this.voice;
    } finally {
      this.joining = false;
      this.refresh();
    }
  }

  /** Leaves voice: disposes the chat (emits `left`). */
  leave(): void {
    const voice = this.voice;
    this.voice = null;
    if (voice) {
      voice.dispose();
      this.events.emit('left', voice);
    }
    this.refresh();
  }

  /** Removes the panel, its key listener and its refresh timer (the chat is not left). */
  dispose(): void {
    clearInterval(this.timer);
    window.removeEventListener('keydown', this.onKeyDown);
    window.removeEventListener('keyup', this.onKeyUp);
    window.removeEventListener('blur', this.onBlur);
    this.element.remove();
    this.events.clear();
  }

  private async toggleJoin(): Promise<void> {
    if (this.voice) this.leave();
    else if (!this.joining) await this.joinNow().catch(() => undefined);
  }

  private refresh(): void {
    const voice = this.voice;
    const b = this.buttons;
    b.join.textContent = this.joining ? 'Joining…' : voice ? 'Leave voice' : 'Join voice';
    const talking = !!voice?.capture;
    for (const button of [b.talk, b.mode, b.delay, b.dump]) button.hidden = !talking;
    if (!voice || !talking) return;
    const s = voice.stats;
    b.mode.textContent = s.ptt.mode === 'open' ? 'Open mic' : 'Push-to-talk';
    b.mode.setAttribute('aria-pressed', String(s.ptt.mode === 'open'));
    b.talk.hidden = s.ptt.mode === 'open';
    b.talk.setAttribute('aria-pressed', String(s.ptt.pressed));
    b.delay.setAttribute('aria-pressed', String(s.delay.enabled));
    b.delay.textContent = s.delay.enabled ? `Delay ${s.delay.seconds} s: on` : `Delay ${s.delay.seconds} s`;
    b.dump.hidden = !s.delay.enabled;
    b.dump.textContent = s.delay.phase === 'dumped' ? `Dumped · ${s.delay.resumesIn.toFixed(1)} s` : 'Dump';
  }

  private readonly onKeyDown = (event: KeyboardEvent): void => {
    if (event.code !== this.key || event.repeat || isTyping(event)) return;
    this.voice?.press();
  };

  private readonly onKeyUp = (event: KeyboardEvent): void => {
    if (event.code === this.key) this.voice?.release();
  };

  /** A key released while the window is unfocused never sends keyup: stop talking on blur. */
  private readonly onBlur = (): void => {
    this.voice?.release();
  };
}

declare module '../world/services.ts' {
  interface WorldServices {
    /** The voice panel (join / leave button) of the world. */
    voicePanel: VoicePanel;
  }
}

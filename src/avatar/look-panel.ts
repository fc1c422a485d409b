/**
 * The Look panel (DOM glue): the player's display name, a humanoid variant (build, skin, hair,
 * outfit, or a shuffle) and a character file by URL. It only shows and edits a {@link LookChoice}
 * and emits `change`; the page applies it (the avatar, the profile, storage). Names are checked
 * as the relay checks them, so a refusal shows here before anything is sent.
 */
import { Emitter } from '../core/emitter.ts';
import { withDefaults } from '../core/options.ts';
import { checkDisplayName, MAX_NAME_CHARS } from '../net/protocol/profile.ts';
import { HAIR_COLOURS, HUMANOID_BUILDS, OUTFITS, SKIN_TONES, type HumanoidVariant } from '../rig/humanoid-variants.ts';
import type { LookChoice } from './look.ts';

// How the panel looks, never where it sits: the page gives it a place (the world's dock,
// src/world/dock.ts, sizes and stacks it beside the other panels; its toggle is a `cairn-tool`).
const STYLE = `
.cairn-look { padding: 8px 10px; background: rgba(12, 18, 24, .86); color: #e8edf2; border-radius: 8px; font: 12px/1.4 system-ui, sans-serif; }
.cairn-look[hidden] { display: none; }
.cairn-look h2 { margin: 0 0 4px; font: 600 12px/1.4 system-ui, sans-serif; text-transform: uppercase; letter-spacing: .06em; color: #9fb3c6; }
.cairn-look .row { display: flex; gap: 4px; margin: 4px 0; align-items: center; }
.cairn-look label { flex: 0 0 46px; color: #9fb3c6; }
.cairn-look input, .cairn-look select { flex: 1; min-width: 0; background: #15202b; color: inherit; border: 1px solid #3b546c; border-radius: 4px; padding: 2px 4px; font: inherit; }
.cairn-look button { background: #26384a; color: inherit; border: 1px solid #3b546c; border-radius: 4px; padding: 2px 7px; cursor: pointer; font: inherit; }
.cairn-look .status { color: #9fb3c6; min-height: 1.4em; overflow-wrap: anywhere; }
.cairn-look .status.bad { color: #ffb4a8; }
`;

/** Options of a {@link LookPanel}. */
export interface LookPanelOptions {
  /** The choice shown at first. */
  choice: LookChoice;
  /**
   * Where the toggle goes: a toolbar (the world page passes its dock's, `worldDock().tools`).
   * Default document.body.
   */
  toolbar?: HTMLElement;
  /**
   * Where the panel goes (the world page passes its dock's panel area, `worldDock().panels`, which
   * places and sizes it). Default document.body.
   */
  panels?: HTMLElement;
  /** Open at first. Default false. */
  open?: boolean;
  /** Picks a random variant for the shuffle button. Default: crypto.getRandomValues. */
  shuffle?: () => HumanoidVariant;
}

/** What a {@link LookPanel} emits. */
export interface LookPanelEvents extends Record<string, unknown> {
  /** The player changed something (the name only once it passes the checks). */
  change: LookChoice;
  /** The panel opened or closed. */
  toggle: boolean;
}

const randomIndex = (n: number): number => {
  const bytes = new Uint32Array(1);
  crypto.getRandomValues(bytes);
  return bytes[0]! % n;
};

/** The defaults (a function: `document` is read only when a panel is made). */
const lookPanelDefaults = (): Required<Omit<LookPanelOptions, 'choice'>> => ({
  toolbar: document.body,
  panels: document.body,
  open: false,
  shuffle: () => ({
    build: randomIndex(HUMANOID_BUILDS.length),
    skin: randomIndex(SKIN_TONES.length),
    hair: randomIndex(HAIR_COLOURS.length),
    outfit: randomIndex(OUTFITS.length),
  }),
});

type Part = keyof HumanoidVariant;
const PARTS: ReadonlyArray<{ part: Part; label: string; names: readonly string[] }> = [
  { part: 'build', label: 'build', names: HUMANOID_BUILDS.map((b) => b.name) },
  { part: 'skin', label: 'skin', names: SKIN_TONES.map((_, i) => `tone ${i + 1}`) },
  { part: 'hair', label: 'hair', names: HAIR_COLOURS.map((_, i) => `colour ${i + 1}`) },
  { part: 'outfit', label: 'outfit', names: OUTFITS.map((_, i) => `outfit ${i + 1}`) },
];

export class LookPanel extends Emitter<LookPanelEvents> {
  /** The panel (class `cairn-look`). */
  readonly element: HTMLElement;
  /** Its toggle button ("Look (L)", classes `cairn-tool cairn-look-toggle`, `aria-pressed` while open). */
  readonly button: HTMLButtonElement;
  private readonly options: Required<LookPanelOptions>;
  private choice: LookChoice;
  private readonly nameInput: HTMLInputElement;
  private readonly urlInput: HTMLInputElement;
  private readonly selects = new Map<Part, HTMLSelectElement>();
  private readonly statusLine: HTMLElement;

  constructor(options: LookPanelOptions) {
    super();
    this.options = withDefaults({ ...lookPanelDefaults(), choice: options.choice }, options);
    this.choice = { ...options.choice, variant: { ...options.choice.variant } };
    if (!document.getElementById('cairn-look-style')) {
      const style = document.createElement('style');
      style.id = 'cairn-look-style';
      style.textContent = STYLE;
      document.head.append(style);
    }
    const button = (this.button = document.createElement('button'));
    button.type = 'button';
    button.className = 'cairn-tool cairn-look-toggle';
    button.textContent = 'Look (L)';
    button.addEventListener('click', () => this.toggle());
    const panel = (this.element = document.createElement('section'));
    panel.className = 'cairn-look';
    panel.setAttribute('aria-label', 'Your look and name');
    const title = document.createElement('h2');
    title.textContent = 'Look';
    panel.append(title);

    const row = (label: string, ...children: HTMLElement[]): HTMLElement => {
      const element = document.createElement('div');
      element.className = 'row';
      const caption = document.createElement('label');
      caption.textContent = label;
      element.append(caption, ...children);
      panel.append(element);
      return element;
    };
    const name = (this.nameInput = document.createElement('input'));
    name.type = 'text';
    name.name = 'name';
    name.maxLength = MAX_NAME_CHARS * 2;
    name.autocomplete = 'off';
    name.spellcheck = false;
    name.value = this.choice.name;
    name.addEventListener('change', () => this.nameChanged());
    name.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') this.nameChanged();
    });
    row('name', name);

    for (const { part, label, names } of PARTS) {
      const select = document.createElement('select');
      select.name = part;
      names.forEach((text, i) => select.append(new Option(text, String(i))));
      select.addEventListener('change', () => this.setVariant({ ...this.choice.variant, [part]: Number(select.value) }, true));
      this.selects.set(part, select);
      row(label, select);
    }
    const shuffle = document.createElement('button');
    shuffle.type = 'button';
    shuffle.textContent = 'Shuffle';
    shuffle.addEventListener('click', () => this.setVariant(this.options.shuffle(), true));
    const humanoid = document.createElement('button');
    humanoid.type = 'button';
    humanoid.textContent = 'Humanoid';
    humanoid.title = 'Wear the humanoid, not a character file';
    humanoid.addEventListener('click', () => {
      this.urlInput.value = '';
      this.update({ ...this.choice, model: null });
    });
    row('', shuffle, humanoid);

    const url = (this.urlInput = document.createElement('input'));
    url.type = 'url';
    url.name = 'model';
    url.placeholder = 'https://…/character.glb';
    url.value = this.choice.model ?? '';
    const wear = document.createElement('button');
    wear.type = 'button';
    wear.textContent = 'Wear';
    wear.addEventListener('click', () => this.modelChanged());
    url.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') this.modelChanged();
    });
    row('file', url, wear);
    this.statusLine = document.createElement('div');
    this.statusLine.className = 'status';
    this.statusLine.setAttribute('role', 'status');
    panel.append(this.statusLine);
    this.showVariant();
    panel.hidden = !this.options.open;
    button.setAttribute('aria-pressed', String(this.options.open));
    this.options.toolbar.append(button);
    this.options.panels.append(panel);
  }

  /** The choice shown now. */
  get value(): LookChoice {
    return { ...this.choice, variant: { ...this.choice.variant } };
  }

  /** True while the panel is open. */
  get open(): boolean {
    return !this.element.hidden;
  }

  /** Opens or closes the panel (the L key and the toggle button). */
  toggle(open = !this.open): void {
    this.element.hidden = !open;
    this.button.setAttribute('aria-pressed', String(open));
    this.emit('toggle', open);
  }

  /** Shows `choice` without emitting (a change made elsewhere: the console, a parameter). */
  show(choice: LookChoice): void {
    this.choice = { ...choice, variant: { ...choice.variant } };
    this.nameInput.value = choice.name;
    this.urlInput.value = choice.model ?? '';
    this.showVariant();
  }

  /** A line under the controls: what is drawn and shared, or why not (`bad`: a problem). */
  setStatus(text: string, bad = false): void {
    this.statusLine.textContent = text;
    this.statusLine.classList.toggle('bad', bad);
  }

  /** Removes the panel, its toggle button and every listener. */
  dispose(): void {
    this.button.remove();
    this.element.remove();
    this.clear();
  }

  private nameChanged(): void {
    const checked = checkDisplayName(this.nameInput.value);
    if (!checked.ok) return this.setStatus(`Name not changed: ${checked.problem}.`, true);
    this.nameInput.value = checked.value;
    if (checked.value !== this.choice.name) this.update({ ...this.choice, name: checked.value });
  }

  private modelChanged(): void {
    const text = this.urlInput.value.trim();
    this.update({ ...this.choice, model: text === '' ? null : text });
  }

  private setVariant(variant: HumanoidVariant, wearHumanoid: boolean): void {
    this.choice = { ...this.choice, variant, ...(wearHumanoid ? { model: null } : {}) };
    if (wearHumanoid) this.urlInput.value = '';
    this.showVariant();
    this.emit('change', this.value);
  }

  private update(choice: LookChoice): void {
    this.choice = choice;
    this.emit('change', this.value);
  }

  private showVariant(): void {
    for (const { part } of PARTS) this.selects.get(part)!.value = String(this.choice.variant[part]);
  }
}

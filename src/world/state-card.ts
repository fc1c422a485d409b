import { withDefaults } from '../core/options.ts';
import { Emitter } from '../core/emitter.ts';

const STYLE = `
.cairn-state-card { position: fixed; left: 50%; top: 42%; transform: translate(-50%, -50%); z-index: 25; max-width: min(360px, calc(100vw - 40px));
  padding: 14px 20px; border-radius: 10px; border: 1px solid rgba(255, 255, 255, .28); background: rgba(12, 18, 24, .86); color: #e8edf2;
  font: 13px/1.45 system-ui, sans-serif; text-align: center; cursor: pointer; box-shadow: 0 6px 24px rgba(0, 0, 0, .4); }
.cairn-state-card:hover, .cairn-state-card:focus-visible { background: rgba(24, 38, 52, .92); }
.cairn-state-card[hidden] { display: none; }
.cairn-state-card strong { display: block; font-size: 18px; letter-spacing: .04em; margin-bottom: 4px; }
.cairn-state-card span { display: block; color: #b9c7d3; }
.cairn-state-card em { display: block; margin-top: 8px; font-style: normal; color: #9fd0ff; }
`;

/** Options of a {@link StateCard}. */
export interface StateCardOptions {
  /** The state, in a word or two ("Paused"). */
  title: string;
  /** What the state means for the visitor. Default none. */
  detail?: string;
  /** How to leave it ("Click or press P to resume"). */
  hint: string;
}

/** Defaults of a {@link StateCard}: no detail line. */
const STATE_CARD_DEFAULTS: Required<Pick<StateCardOptions, 'detail'>> = { detail: '' };

/** What a {@link StateCard} emits: `activate` when it is clicked (or pressed with Enter/Space while focused). */
export interface StateCardEvents extends Record<string, unknown> {
  /** The card was clicked, or pressed with Enter or Space while focused. */
  activate: void;
}

let styled = false;

/**
 * A card in the middle of the window for a state that stops the world (paused): what is stopped
 * and how to leave it, clickable to leave it. The one element the layout allows over the centre
 * band (dock.ts), and only while the state lasts. Hidden until {@link show}.
 */
export class StateCard extends Emitter<StateCardEvents> {
  /** The card's element: a button in the middle of the window. */
  readonly element: HTMLButtonElement;

  constructor(options: StateCardOptions) {
    super();
    if (!styled) {
      styled = true;
      const style = document.createElement('style');
      style.textContent = STYLE;
      document.head.append(style);
    }
    const element = (this.element = document.createElement('button'));
    element.type = 'button';
    element.className = 'cairn-state-card';
    element.hidden = true;
    const title = document.createElement('strong');
    title.textContent = options.title;
    element.append(title);
    const { detail: detailText } = withDefaults(STATE_CARD_DEFAULTS, options);
    if (detailText) {
      const detail = document.createElement('span');
      detail.textContent = detailText;
      element.append(detail);
    }
    const hint = document.createElement('em');
    hint.textContent = options.hint;
    element.append(hint);
    element.addEventListener('click', this.onClick);
    document.body.append(element);
  }

  /** True while the card is shown. */
  get visible(): boolean {
    return !this.element.hidden;
  }

  /** Shows the card. */
  show(): void {
    this.element.hidden = false;
  }

  /** Hides the card. */
  hide(): void {
    this.element.hidden = true;
  }

  /** Removes the card's element and its listeners. */
  dispose(): void {
    this.element.removeEventListener('click', this.onClick);
    this.element.remove();
    this.clear();
  }

  private readonly onClick = (): void => {
    // Focus left on the card would make Space click it again instead of jumping.
    this.element.blur();
    this.emit('activate', undefined);
  };
}

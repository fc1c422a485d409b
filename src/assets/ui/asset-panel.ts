import { Emitter } from '../../core/emitter.ts';
import { withDefaults } from '../../core/options.ts';
import type { AssetBrowser, ModelLoadEvent } from '../asset-browser.ts';
import type { CatalogState } from '../catalog-client.ts';
import { debounce, type Debounced } from '../debounce.ts';
import type { LoadedModel } from '../model-loader.ts';
import type { SearchResult } from '../search-index.ts';
import { LazyImages } from './lazy-images.ts';
import { injectAssetStyles } from './styles.ts';

/** A button in the panel's model section that acts on the shown model (place it, add it to scatter…). */
export interface PanelAction {
  /** An id for tests and the console. */
  id: string;
  /** The button's text. */
  label: string;
  /** Tooltip. */
  title?: string;
  /** Whether it can run now: true, or the reason it cannot (shown as the tooltip). Default: always. */
  available?: () => true | string;
  /** Options for a drop-down shown before the button (e.g. scatter categories), refreshed with the actions. */
  choices?: (model: LoadedModel) => {
    /** The drop-down's options. */
    options: string[];
    /** The option selected at first. */
    selected: string;
  };
  /** Runs the action on the shown model with the drop-down's choice, if any; a rejection is shown in the status line. */
  run(model: LoadedModel, choice?: string): void | Promise<void>;
}

/** Options of an {@link AssetPanel}. */
export interface AssetPanelOptions {
  /** The browser the panel drives. */
  browser: AssetBrowser;
  /** Element the panel goes into. Default document.body. */
  container?: HTMLElement;
  /** Heading. Default 'Assets'. */
  title?: string;
  /** Texture resolutions offered. Default 1k, 2k, 4k. */
  resolutions?: string[];
  /** Buttons for the model section. Default none. */
  actions?: PanelAction[];
  /** Start hidden (the world opens it from a button). Default false. */
  hidden?: boolean;
  /** Search debounce in ms. Default 120. */
  debounceMs?: number;
  /** Adds a close button (×) to the header; a click emits `close`. Default false. */
  closeButton?: boolean;
}

/** What an {@link AssetPanel} emits: `close` when its close button is clicked. */
export interface AssetPanelEvents extends Record<string, unknown> {
  /** The close button was clicked. */
  close: void;
}

interface CardState {
  state: 'idle' | 'loading' | 'loaded' | 'error';
  text: string;
}

const number = (n: number): string => n.toLocaleString('en-US');

/**
 * The search panel: a search box (debounced 120 ms), catalog status with a progress bar and a
 * retry, the top 60 results as cards with lazily loaded thumbnails, a resolution choice, the shown
 * model's simplification slider with triangles before/after, and the "Powered by Poly Haven"
 * credit the API's terms ask for. Drives an {@link AssetBrowser}; all logic lives there.
 */
export class AssetPanel extends Emitter<AssetPanelEvents> {
  /** The panel's element. */
  readonly element: HTMLElement;
  /** The search box. */
  readonly input: HTMLInputElement;
  /** The result cards' grid. */
  readonly grid: HTMLElement;
  /** Loads the cards' thumbnails as they scroll into view. */
  readonly thumbnails: LazyImages;
  private readonly browser: AssetBrowser;
  private readonly status: HTMLElement;
  private readonly count: HTMLElement;
  private readonly progressBar: HTMLProgressElement;
  private readonly resolution: HTMLSelectElement;
  private readonly modelSection: HTMLElement;
  private readonly modelName: HTMLElement;
  private readonly triangles: HTMLElement;
  private readonly slider: HTMLInputElement;
  private readonly actionButtons = new Map<string, { action: PanelAction; button: HTMLButtonElement; select: HTMLSelectElement | null }>();
  private readonly cards = new Map<string, HTMLButtonElement>();
  private readonly cardStates = new Map<string, CardState>();
  private readonly typed: Debounced<[string]>;
  private readonly applyRatio: Debounced<[number]>;
  private readonly unsubscribe: Array<() => void> = [];
  private shown: LoadedModel | null = null;

  constructor(panelOptions: AssetPanelOptions) {
    super();
    const defaults: Required<Omit<AssetPanelOptions, 'browser'>> = {
      container: document.body,
      title: 'Assets',
      resolutions: ['1k', '2k', '4k'],
      actions: [],
      hidden: false,
      debounceMs: 120,
      closeButton: false,
    };
    const options = { ...withDefaults(defaults, panelOptions), browser: panelOptions.browser };
    injectAssetStyles();
    this.browser = options.browser;
    const root = document.createElement('aside');
    root.className = 'cairn-assets';
    root.setAttribute('aria-label', 'Asset search');
    root.hidden = options.hidden;
    root.innerHTML = `
      <header>
        <h1></h1>
        <input type="search" placeholder="Search CC0 models…" aria-label="Search models" autocomplete="off" spellcheck="false" />
        <select aria-label="Texture resolution" title="Texture resolution"></select>
        <button type="button" data-role="refresh" title="Refresh the catalog">⟳</button>
      </header>
      <progress hidden></progress>
      <div class="status" role="status"></div>
      <div class="count" data-role="count"></div>
      <div class="grid" role="list"></div>
      <section class="model" hidden>
        <div class="row"><strong data-role="model-name"></strong><span data-role="triangles"></span></div>
        <div class="row"><label for="cairn-assets-ratio">Detail</label><input id="cairn-assets-ratio" type="range" min="1" max="100" value="100" /><span data-role="ratio">100%</span></div>
        <div class="row" data-role="actions"></div>
      </section>
      <div class="credit">Powered by <a href="https://polyhaven.com" target="_blank" rel="noopener">Poly Haven</a> · CC0 models</div>`;
    root.querySelector('h1')!.textContent = options.title;
    this.element = root;
    this.input = root.querySelector('input[type=search]')!;
    this.grid = root.querySelector('.grid')!;
    this.status = root.querySelector('.status')!;
    this.count = root.querySelector('[data-role=count]')!;
    this.progressBar = root.querySelector('progress')!;
    this.resolution = root.querySelector('select')!;
    this.modelSection = root.querySelector('.model')!;
    this.modelName = root.querySelector('[data-role=model-name]')!;
    this.triangles = root.querySelector('[data-role=triangles]')!;
    this.slider = root.querySelector('input[type=range]')!;
    if (options.closeButton) {
      const close = document.createElement('button');
      close.type = 'button';
      close.dataset.role = 'close';
      close.title = 'Close';
      close.setAttribute('aria-label', 'Close the asset panel');
      close.textContent = '×';
      close.onclick = () => this.emit('close', undefined);
      root.querySelector('header')!.append(close);
    }
    for (const res of options.resolutions) this.resolution.add(new Option(res, res, false, res === this.browser.resolution));
    const actions = root.querySelector('[data-role=actions]')!;
    for (const action of options.actions) {
      const button = document.createElement('button');
      button.type = 'button';
      button.dataset.action = action.id;
      button.textContent = action.label;
      button.title = action.title ?? '';
      const select = action.choices ? document.createElement('select') : null;
      if (select) {
        select.dataset.action = action.id;
        select.setAttribute('aria-label', `${action.label}: choice`);
        actions.append(select);
      }
      button.onclick = () => {
        if (!this.shown) return;
        void Promise.resolve(action.run(this.shown, select?.value)).catch((error: Error) =>
          this.setStatus(`${action.label} failed: ${error.message}`, 'bad'),
        );
      };
      actions.append(button);
      this.actionButtons.set(action.id, { action, button, select });
    }
    options.container.append(root);
    this.thumbnails = new LazyImages({ root: this.grid });

    this.typed = debounce((query: string) => this.browser.search(query), options.debounceMs);
    this.input.addEventListener('input', () => this.typed(this.input.value));
    this.input.addEventListener('keydown', (event) => {
      if (event.key !== 'Enter') return;
      this.typed.flush();
      const top = this.browser.results?.hits[0];
      if (top) void this.load(top.entry.id);
    });
    this.resolution.addEventListener('change', () => {
      this.browser.resolution = this.resolution.value;
      if (this.shown) void this.load(this.shown.id);
    });
    root.querySelector<HTMLButtonElement>('[data-role=refresh]')!.onclick = () => void this.browser.loadCatalog({ force: true });
    this.applyRatio = debounce((ratio: number) => this.browser.setRatio(ratio), 40);
    this.slider.addEventListener('input', () => {
      const ratio = Number(this.slider.value) / 100;
      root.querySelector('[data-role=ratio]')!.textContent = `${this.slider.value}%`;
      this.applyRatio(ratio);
    });
    this.grid.addEventListener('click', (event) => {
      const card = (event.target as HTMLElement).closest<HTMLButtonElement>('.cairn-asset-card');
      if (card?.dataset.id) void this.load(card.dataset.id);
    });

    this.unsubscribe.push(
      this.browser.on('catalog', (state) => this.onCatalog(state)),
      this.browser.on('results', (result) => this.renderResults(result)),
      this.browser.on('load', (event) => this.onLoad(event)),
      this.browser.on(
        'simplify',
        (report) => (this.triangles.textContent = `${number(report.trianglesBefore)} → ${number(report.trianglesAfter)} triangles`),
      ),
    );
    this.onCatalog(this.browser.catalog.state);
    if (this.browser.results) this.renderResults(this.browser.results);
  }

  private load(id: string): Promise<void> {
    return this.browser.load(id).then(
      () => undefined,
      () => undefined, // shown on the card by onLoad
    );
  }

  /** Sets the search box and searches at once (for automation: no debounce). */
  searchNow(query: string): SearchResult {
    this.input.value = query;
    this.typed.cancel();
    return this.browser.search(query);
  }

  /** Shows the panel. */
  show(): void {
    this.element.hidden = false;
  }
  /** Hides the panel. */
  hide(): void {
    this.element.hidden = true;
  }
  /** True while the panel is shown. */
  get visible(): boolean {
    return !this.element.hidden;
  }

  /** Shows a message in the panel's status line (actions report what they did here). */
  setStatus(text: string, tone?: 'warn' | 'bad', retry = false): void {
    this.status.textContent = text;
    if (tone) this.status.dataset.tone = tone;
    else delete this.status.dataset.tone;
    if (retry) {
      const button = document.createElement('button');
      button.type = 'button';
      button.dataset.role = 'retry';
      button.textContent = 'Retry';
      button.onclick = () => void this.browser.loadCatalog({ force: true });
      this.status.append(button);
    }
  }

  private onCatalog(state: CatalogState): void {
    const loading = state.status === 'loading';
    this.progressBar.hidden = !loading;
    if (loading && state.progress?.total) {
      this.progressBar.max = state.progress.total;
      this.progressBar.value = state.progress.done;
    } else if (loading) {
      this.progressBar.removeAttribute('value'); // indeterminate: the server did not say how big
    }
    const saved = state.savedAt ? new Date(state.savedAt).toLocaleString() : 'earlier';
    switch (state.status) {
      case 'idle':
        this.setStatus('');
        break;
      case 'loading':
        this.setStatus(
          state.progress?.total
            ? `Loading the catalog… ${Math.round((100 * state.progress.done) / state.progress.total)}%`
            : state.entries.length
              ? `Refreshing the catalog (${number(state.entries.length)} models cached)…`
              : 'Loading the catalog…',
        );
        break;
      case 'ready':
        this.setStatus(`${number(state.entries.length)} models${state.source === 'cache' ? ` (cached ${saved})` : ''}`);
        break;
      case 'stale':
        this.setStatus(
          `Poly Haven is unreachable: ${state.error?.message ?? 'unknown error'}. Showing the catalog cached ${saved}.`,
          'warn',
          true,
        );
        break;
      case 'error':
        this.setStatus(`Cannot load the catalog: ${state.error?.message ?? 'unknown error'}.`, 'bad', true);
        break;
    }
  }

  private renderResults(result: SearchResult): void {
    for (const card of this.cards.values()) {
      const image = card.querySelector('img');
      if (image) this.thumbnails.unobserve(image);
    }
    this.cards.clear();
    const fragment = document.createDocumentFragment();
    for (const hit of result.hits) {
      const { entry } = hit;
      const card = document.createElement('button');
      card.type = 'button';
      card.className = 'cairn-asset-card';
      card.dataset.id = entry.id;
      card.setAttribute('role', 'listitem');
      card.title = `${entry.name} — ${entry.id}`;
      const image = document.createElement('img');
      image.alt = '';
      image.decoding = 'async';
      image.width = 100;
      image.height = 100;
      const name = document.createElement('span');
      name.className = 'name';
      name.textContent = entry.name;
      const meta = document.createElement('span');
      meta.className = 'meta';
      meta.textContent = entry.categories.slice(0, 2).join(' · ') || entry.id;
      const state = document.createElement('span');
      state.className = 'state';
      card.append(image, name, meta, state);
      this.applyCardState(card, this.cardStates.get(entry.id));
      if (entry.thumbnailUrl) this.thumbnails.observe(image, entry.thumbnailUrl);
      this.cards.set(entry.id, card);
      fragment.append(card);
    }
    this.grid.replaceChildren(fragment);
    const query = result.query.trim();
    this.count.textContent = query
      ? `${number(result.total)} match${result.total === 1 ? '' : 'es'} for "${query}"${result.total > result.hits.length ? ` · top ${result.hits.length} shown` : ''}`
      : result.total > result.hits.length
        ? `Most downloaded ${result.hits.length} of ${number(result.total)}`
        : '';
    this.grid.scrollTop = 0;
    if (this.browser.catalog.state.entries.length > 0 && result.hits.length === 0) {
      const empty = document.createElement('p');
      empty.textContent = `Nothing matches "${result.query.trim()}".`;
      this.grid.append(empty);
    }
  }

  private applyCardState(card: HTMLButtonElement, state: CardState | undefined): void {
    card.dataset.state = state?.state ?? 'idle';
    card.querySelector('.state')!.textContent = state?.text ?? '';
  }

  private setCard(id: string, state: CardState): void {
    if (state.state === 'loaded') {
      for (const [other, s] of this.cardStates) if (s.state === 'loaded' && other !== id) this.cardStates.delete(other);
      for (const card of this.cards.values())
        if (card.dataset.state === 'loaded' && card.dataset.id !== id) this.applyCardState(card, undefined);
    }
    this.cardStates.set(id, state);
    const card = this.cards.get(id);
    if (card) this.applyCardState(card, state);
  }

  private onLoad(event: ModelLoadEvent): void {
    switch (event.state) {
      case 'loading':
        this.setCard(event.id, {
          state: 'loading',
          text: event.progress
            ? `Loading ${event.resolution}… ${event.progress.done}/${event.progress.total} files`
            : `Loading ${event.resolution}…`,
        });
        break;
      case 'error':
        this.setCard(event.id, { state: 'error', text: event.error?.message ?? 'failed' });
        break;
      case 'loaded': {
        const model = event.model!;
        this.shown = model;
        this.setCard(event.id, { state: 'loaded', text: '' });
        this.modelSection.hidden = false;
        this.modelName.textContent = `${this.browser.catalog.state.entries.find((e) => e.id === model.id)?.name ?? model.id} · ${model.resolution}`;
        this.triangles.textContent = `${number(model.triangles)} triangles`;
        this.slider.value = '100';
        this.element.querySelector('[data-role=ratio]')!.textContent = '100%';
        this.resolution.value = model.resolution;
        this.refreshActions();
        if (model.failedFiles.length)
          this.setStatus(`${model.id} loaded, but ${model.failedFiles.length} file(s) failed: ${model.failedFiles.join(', ')}`, 'warn');
        break;
      }
    }
  }

  /** Re-checks which actions can run (call when their conditions change). */
  refreshActions(): void {
    for (const { action, button, select } of this.actionButtons.values()) {
      const available = this.shown ? (action.available?.() ?? true) : 'load a model first';
      button.disabled = available !== true;
      button.title = available === true ? (action.title ?? '') : available;
      if (select) {
        select.disabled = available !== true;
        const choices = available === true && this.shown ? action.choices!(this.shown) : { options: [], selected: '' };
        select.replaceChildren(...choices.options.map((option) => new Option(option, option, false, option === choices.selected)));
      }
    }
  }

  /** Forgets the shown model (after it was freed or handed over elsewhere). */
  clearModel(): void {
    this.shown = null;
    this.modelSection.hidden = true;
    for (const [id, s] of this.cardStates) {
      if (s.state !== 'loaded') continue;
      this.cardStates.delete(id);
      const card = this.cards.get(id);
      if (card) this.applyCardState(card, undefined);
    }
  }

  /** Removes the panel's element and listeners and stops its thumbnails. */
  dispose(): void {
    this.typed.cancel();
    this.applyRatio.cancel();
    for (const off of this.unsubscribe) off();
    this.thumbnails.dispose();
    this.element.remove();
    this.clear();
  }
}

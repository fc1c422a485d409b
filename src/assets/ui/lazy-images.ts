import { withDefaults } from '../../core/options.ts';

/** Counts of thumbnail work, published in `cairn.stats.assets.thumbnails`. */
export interface LazyImageStats {
  /** Images that have been given their URL (a request started). */
  requested: number;
  loaded: number;
  failed: number;
  /** Images waiting to scroll into view. */
  waiting: number;
}

export interface LazyImagesOptions {
  /** The scrolling element the images live in. Default: the viewport. */
  root?: Element | null;
  /** How far outside the visible area to start loading, CSS margin syntax. Default '48px'. */
  rootMargin?: string;
}

/**
 * Gives each image its URL only when it scrolls into view (IntersectionObserver), so typing a
 * query that renders 60 cards starts a handful of image requests, not 60. Images keep their URL
 * in `data-src` until then.
 */
const LAZY_IMAGES_DEFAULTS: Required<LazyImagesOptions> = { root: null, rootMargin: '48px' };

export class LazyImages {
  readonly stats: LazyImageStats = { requested: 0, loaded: 0, failed: 0, waiting: 0 };
  private readonly observer: IntersectionObserver;
  private readonly pending = new Map<HTMLImageElement, string>();

  constructor(options: LazyImagesOptions = {}) {
    const { root, rootMargin } = withDefaults(LAZY_IMAGES_DEFAULTS, options);
    this.observer = new IntersectionObserver((entries) => this.onIntersect(entries), { root, rootMargin });
  }

  /** Loads `url` into `image` once it is visible. */
  observe(image: HTMLImageElement, url: string): void {
    image.dataset.src = url;
    this.pending.set(image, url);
    this.stats.waiting = this.pending.size;
    this.observer.observe(image);
  }

  /** Stops watching `image` (it left the page before it was seen). */
  unobserve(image: HTMLImageElement): void {
    if (this.pending.delete(image)) this.observer.unobserve(image);
    this.stats.waiting = this.pending.size;
  }

  private onIntersect(entries: IntersectionObserverEntry[]): void {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      const image = entry.target as HTMLImageElement;
      const url = this.pending.get(image);
      if (url === undefined) continue;
      this.pending.delete(image);
      this.observer.unobserve(image);
      image.addEventListener('load', () => this.stats.loaded++, { once: true });
      image.addEventListener(
        'error',
        () => {
          this.stats.failed++;
          image.dataset.failed = 'true';
        },
        { once: true },
      );
      // Poly Haven's terms: identify the app by Referer on every request to its servers.
      image.referrerPolicy = 'origin';
      image.src = url;
      this.stats.requested++;
    }
    this.stats.waiting = this.pending.size;
  }

  dispose(): void {
    this.observer.disconnect();
    this.pending.clear();
    this.stats.waiting = 0;
  }
}

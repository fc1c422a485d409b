/**
 * Node has no image decoding for three's TextureLoader/ImageBitmapLoader. This loader fetches a
 * PNG (through the manager's URL modifier, like three's own loaders) and decodes it with pngjs
 * into a DataTexture, so GLTFLoader can load the fixture's textured models in Node tests.
 */
import { PNG } from 'pngjs';
import { DataTexture, Loader, LoadingManager, RGBAFormat, type Texture } from 'three';

export class NodePngLoader extends Loader<Texture> {
  override load(url: string, onLoad: (texture: Texture) => void, _onProgress?: unknown, onError?: (error: unknown) => void): void {
    const resolved = this.manager.resolveURL(url);
    this.manager.itemStart(resolved);
    fetch(resolved)
      .then(async (response) => {
        if (!response.ok) throw new Error(`HTTP ${response.status} for ${resolved}`);
        const png = PNG.sync.read(Buffer.from(await response.arrayBuffer()));
        const texture = new DataTexture(new Uint8Array(png.data), png.width, png.height, RGBAFormat);
        texture.needsUpdate = true;
        onLoad(texture);
        this.manager.itemEnd(resolved);
      })
      .catch((error) => {
        onError?.(error);
        this.manager.itemError(resolved);
        this.manager.itemEnd(resolved);
      });
  }
}

/** For `configureManager`: routes every .png through {@link NodePngLoader}. */
export function useNodePngLoader(manager: LoadingManager): void {
  manager.addHandler(/\.png$/i, new NodePngLoader(manager));
}

/**
 * What three's loaders expect of a browser and Node 20 lacks: FileLoader reports progress with
 * `new ProgressEvent(...)` (a plain Event subclass with the same fields is enough) and GLTFLoader
 * reads `self.URL` when it loads images.
 */
export function installNodeLoaderPolyfills(): void {
  (globalThis as { self?: unknown }).self ??= globalThis;
  if (typeof (globalThis as { ProgressEvent?: unknown }).ProgressEvent !== 'undefined') return;
  class NodeProgressEvent extends Event {
    readonly lengthComputable: boolean;
    readonly loaded: number;
    readonly total: number;
    constructor(type: string, init: { lengthComputable?: boolean; loaded?: number; total?: number } = {}) {
      super(type);
      this.lengthComputable = init.lengthComputable ?? false;
      this.loaded = init.loaded ?? 0;
      this.total = init.total ?? 0;
    }
  }
  (globalThis as { ProgressEvent?: unknown }).ProgressEvent = NodeProgressEvent;
}

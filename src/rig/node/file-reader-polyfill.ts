/**
 * Node has Blob but no FileReader, which three's GLTFExporter uses to assemble GLB files. This
 * installs a minimal FileReader (readAsArrayBuffer, readAsDataURL) on globalThis so command-line
 * tools and Node tests can export glTF. Browser code never needs it; calling it there is a no-op.
 */
export function installFileReaderPolyfill(): void {
  if (typeof (globalThis as { FileReader?: unknown }).FileReader !== 'undefined') return;

  class NodeFileReader {
    result: ArrayBuffer | string | null = null;
    error: Error | null = null;
    onload: ((event: { target: NodeFileReader }) => void) | null = null;
    onloadend: ((event: { target: NodeFileReader }) => void) | null = null;
    onerror: ((event: { target: NodeFileReader }) => void) | null = null;

    readAsArrayBuffer(blob: Blob): void {
      this.finish(blob.arrayBuffer());
    }

    readAsDataURL(blob: Blob): void {
      this.finish(
        blob
          .arrayBuffer()
          .then((buffer) => `data:${blob.type || 'application/octet-stream'};base64,${Buffer.from(buffer).toString('base64')}`),
      );
    }

    private finish(work: Promise<ArrayBuffer | string>): void {
      work.then(
        (result) => {
          this.result = result;
          this.onload?.({ target: this });
          this.onloadend?.({ target: this });
        },
        (error: Error) => {
          this.error = error;
          this.onerror?.({ target: this });
          this.onloadend?.({ target: this });
        },
      );
    }
  }
  (globalThis as { FileReader?: unknown }).FileReader = NodeFileReader;
}

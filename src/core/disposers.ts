/**
 * A stack of things to undo, undone newest first, once: what a plugin or a page collects while it
 * wires itself in (listeners, frame callbacks, HUD sections, services) and hands back as one
 * disposer. A callback that throws is logged and the rest still run.
 *
 * ```ts
 * import { Disposers } from 'cairn-world/core';
 *
 * const undo = new Disposers();
 * const order: string[] = [];
 * undo.add(() => order.push('first'));
 * undo.add(() => order.push('second'));
 * undo.dispose();
 * undo.dispose();
 * if (order.join() !== 'second,first') throw new Error(`undone as ${order.join()}`);
 * ```
 */
export class Disposers {
  private readonly stack: Array<() => void> = [];

  /**
   * Adds `dispose` (undone before everything added earlier); returns it, so `const off = undo.add(on(...))` reads naturally.
   *
   * @typeParam F - the callback's own type, returned unchanged.
   */
  add<F extends () => unknown>(dispose: F): F {
    this.stack.push(dispose);
    return dispose;
  }

  /** Removes `dispose` without running it (it was undone by hand). */
  remove(dispose: () => unknown): void {
    const index = this.stack.lastIndexOf(dispose);
    if (index >= 0) this.stack.splice(index, 1);
  }

  /** Runs every callback, newest first, and empties the stack. */
  dispose(): void {
    for (const dispose of this.stack.splice(0).reverse()) {
      try {
        dispose();
      } catch (error) {
        console.error('a disposer failed', error);
      }
    }
  }
}

import 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Base URL of the wrangler dev server started by the suite's globalSetup. */
    serverUrl: string;
    /** X display (e.g. ':3') of the Xvfb the engines suite's globalSetup started. */
    display: string;
  }
}

import 'vitest';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Base URL of the wrangler dev server started by the suite's globalSetup. */
    serverUrl: string;
    /** X display (e.g. ':3') of the Xvfb the engines suite's globalSetup started. */
    display: string;
    /** The built pages the browser suite's server serves (a suite that starts a server of its own serves them too). */
    assetsDir: string;
  }
}

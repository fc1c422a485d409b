/** The consumer page's handle for tests/consumer/consumer.test.ts (the app's own, not Cairn's). No imports: the test reads it too. */
export interface ConsumerHandle {
  revision: string;
  serviceKeys: string[];
  backend: string;
  /** Shows or hides one part, renders a frame and resolves after it is on screen. */
  show(part: 'crowd' | 'forest' | 'ambient', visible: boolean): Promise<void>;
  /** Plays a sound and waits for the meter to report it. */
  sound(): Promise<{ source: string; maxPeak: number; momentaryMax: number }>;
  stats(): {
    crowd: { agents: number; visible: number; gpu: number };
    forest: number;
    ambient: { mode: string; placed: number; instances: number; lastError: string | null };
  };
}

declare global {
  interface Window {
    consumer?: ConsumerHandle;
    consumerError?: string;
  }
}

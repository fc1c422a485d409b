import { start } from './scene.ts';

const canvas = document.querySelector<HTMLCanvasElement>('#view')!;
start(canvas).then(
  (handle) => (window.consumer = handle),
  (error: unknown) => (window.consumerError = error instanceof Error ? `${error.message}\n${error.stack}` : String(error)),
);

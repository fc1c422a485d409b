import WebSocket from 'ws';

/** Opens a WebSocket to the test server and resolves once it is open (rejects on error/close). */
export function openSocket(url: string, timeoutMs = 10_000): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url);
    const timer = setTimeout(() => {
      socket.terminate();
      reject(new Error(`WebSocket ${url} did not open within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once('open', () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.once('unexpected-response', (_request, response) => {
      clearTimeout(timer);
      reject(new Error(`WebSocket ${url} refused with HTTP ${response.statusCode}`));
    });
  });
}

/** Resolves with the close code and reason when the socket closes. */
export function closed(socket: WebSocket, timeoutMs = 10_000): Promise<{ code: number; reason: string }> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`socket did not close within ${timeoutMs} ms`)), timeoutMs);
    socket.once('close', (code, reason) => {
      clearTimeout(timer);
      resolve({ code, reason: reason.toString() });
    });
  });
}

/** ws:// URL for a path on an http:// base. */
export function wsUrl(base: string, path: string): string {
  return base.replace(/^http/, 'ws') + path;
}

/**
 * Sends `data` on `ws`; false when the socket is closing under us (its close event will remove it).
 * Every server send goes through here, so a closed socket never throws into a room's logic.
 */
export function send(ws: WebSocket, data: string | ArrayBuffer | ArrayBufferView): boolean {
  try {
    ws.send(data);
    return true;
  } catch {
    return false;
  }
}

/** Sends `message` as JSON text (see {@link send}). */
export function sendJson(ws: WebSocket, message: object): boolean {
  return send(ws, JSON.stringify(message));
}

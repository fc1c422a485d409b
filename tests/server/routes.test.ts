import { describe, expect, inject, it } from 'vitest';
import { closed, openSocket, wsUrl } from '../harness/ws-client.ts';

const base = inject('serverUrl');

describe('Worker routes (real workerd via wrangler dev)', () => {
  it('answers /api/health', async () => {
    const response = await fetch(`${base}/api/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ ok: true, rooms: ['avatar', 'voice', 'edits'] });
  });

  it('404s unknown routes and unknown room kinds', async () => {
    const missing = await fetch(`${base}/no/such/page`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toMatch(/not found/);
    const kind = await fetch(`${base}/rooms/chess/lobby`);
    expect(kind.status).toBe(404);
    expect(await kind.text()).toMatch(/unknown room kind "chess"/);
  });

  it('rejects bad room names with 400 and a reason', async () => {
    for (const [name, reason] of [
      ['bad%20name', /letters, digits/],
      ['x'.repeat(65), /at most 64/],
      ['', /empty/],
      ['%E0%A4%A', /percent-encoding/],
    ] as const) {
      const response = await fetch(`${base}/rooms/avatar/${name}`);
      expect(response.status, name).toBe(400);
      expect(await response.text()).toMatch(reason);
    }
    // A real WebSocket handshake with a bad name is refused the same way.
    await expect(openSocket(wsUrl(base, '/rooms/avatar/no%20spaces'))).rejects.toThrow(/HTTP 400/);
  });

  it('answers 426 to a plain request on a room route', async () => {
    const response = await fetch(`${base}/rooms/voice/lobby`);
    expect(response.status).toBe(426);
    expect(await response.text()).toMatch(/WebSocket endpoint/);
  });

  for (const kind of ['avatar', 'voice']) {
    it(`accepts a WebSocket in a ${kind} room and completes a polite close`, async () => {
      const socket = await openSocket(wsUrl(base, `/rooms/${kind}/test-room.1`));
      const done = closed(socket);
      socket.close(1000, 'bye');
      expect(await done).toEqual({ code: 1000, reason: 'bye' });
    });
  }
});

/**
 * The peer in the relay benchmark: a minimal Node `ws` broadcast relay — every binary message
 * goes to every other socket, no checks, no stamping, no coalescing. Run as its own process
 * (`tsx ws-broadcast-relay.ts`), so its CPU can be read from /proc like the Worker's; it prints
 * `port <n>` when listening.
 */
import { WebSocketServer, type WebSocket } from 'ws';

const server = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
const sockets = new Set<WebSocket>();
server.on('connection', (socket) => {
  sockets.add(socket);
  socket.on('message', (data, isBinary) => {
    if (!isBinary) return;
    for (const other of sockets) if (other !== socket && other.readyState === 1) other.send(data, { binary: true });
  });
  socket.on('close', () => sockets.delete(socket));
});
server.on('listening', () => {
  const address = server.address();
  console.log(`port ${typeof address === 'object' && address ? address.port : 0}`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));

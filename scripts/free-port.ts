import { createServer } from 'node:net';

/**
 * A free loopback port: binds 127.0.0.1:0, reads the port the OS chose and releases it. The
 * supervisor starts each Worker on one, and the tests start their servers and browsers on them,
 * so parallel runs never collide on a fixed port.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      if (address === null || typeof address === 'string') return reject(new Error('no port'));
      server.close(() => resolve(address.port));
    });
  });
}

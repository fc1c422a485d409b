import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP pass-through in front of the real server that a test can cut, to drop live connections
 * and refuse new ones for a while — a real network failure between a client and the relay
 * (cheaper than restarting wrangler, ~20 s a start on a loaded machine). The relay itself is
 * untouched.
 */
export class NetCutter {
  /** Connection attempts refused while cut, with their times (ms). */
  readonly refusedAt: number[] = [];
  private readonly live = new Set<Socket>();
  private refusing = false;

  private readonly server: Server;
  readonly port: number;

  private constructor(server: Server, port: number) {
    this.server = server;
    this.port = port;
  }

  static async start(targetPort: number): Promise<NetCutter> {
    let cutter: NetCutter | null = null;
    const server = createServer((client) => {
      if (!cutter || cutter.refusing) {
        cutter?.refusedAt.push(Date.now());
        client.destroy();
        return;
      }
      const upstream = connect(targetPort, '127.0.0.1');
      cutter.live.add(client).add(upstream);
      const drop = (): void => {
        client.destroy();
        upstream.destroy();
        cutter?.live.delete(client);
        cutter?.live.delete(upstream);
      };
      client.on('error', drop).on('close', drop);
      upstream.on('error', drop).on('close', drop);
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const address = server.address();
    if (!address || typeof address === 'string') throw new Error('NetCutter: no port');
    cutter = new NetCutter(server, address.port);
    return cutter;
  }

  /** Drops every live connection and refuses new ones until {@link restore}. */
  cut(): void {
    this.refusing = true;
    for (const socket of this.live) socket.destroy();
    this.live.clear();
  }

  restore(): void {
    this.refusing = false;
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

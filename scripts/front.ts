/**
 * The front of the local server (`npm start`, and every test and benchmark server): a small HTTP
 * and WebSocket proxy on the public address and port, in front of `wrangler dev` on a private
 * loopback port. It does one thing to each request: sets `CF-Connecting-IP` to the connection's
 * real peer address, replacing any a client sent. Behind Cloudflare that header is Cloudflare's
 * and cannot be forged; under plain `wrangler dev` miniflare sets it only when a request lacks one,
 * so a client could pick its own address (its own budgets, its own session and enter throttles).
 * Behind the front the Worker sees the address the connection came from, as in production.
 *
 * While the Worker restarts (see scripts/supervisor.ts) requests wait for it instead of failing,
 * and a request that never reached it — or that wrangler answers "Your worker restarted
 * mid-request" for — is sent again once it is back, when sending it again is safe.
 */
import { Agent, createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';

/** The header the Worker reads the client's address from (server/identity/client.ts). */
export const ADDRESS_HEADER = 'CF-Connecting-IP';
/** Largest request body the front buffers (so it can send it again); bigger ones are refused. */
const MAX_BODY_BYTES = 8 * 1024 * 1024;
/** How long a request waits for a restarting Worker before it is answered 503 (ms). */
const WAIT_FOR_WORKER_MS = 30_000;

export interface FrontOptions {
  /** Address to listen on (`--ip`). */
  ip: string;
  /** Port to listen on (`--port`). */
  port: number;
  /** The Worker's loopback port once it answers; waits while it is (re)starting, rejects when it will not come back. */
  upstream: () => Promise<number>;
  /** Where the front says what it did (requests sent again after a reload: one line a second at most). */
  log?: (line: string) => void;
}

/** The client's address as the Worker should see it: the socket's peer, IPv4 written as IPv4. */
export function peerAddress(socket: Socket): string {
  const address = socket.remoteAddress ?? 'unknown';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice('::ffff:'.length) : address;
}

/** `rawHeaders` without any client-sent address header, with the peer's address added. */
export function forwardedHeaders(rawHeaders: readonly string[], address: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (rawHeaders[i]!.toLowerCase() === ADDRESS_HEADER.toLowerCase()) continue;
    out.push(rawHeaders[i]!, rawHeaders[i + 1]!);
  }
  out.push(ADDRESS_HEADER, address);
  return out;
}

/** Requests that may be sent a second time when the first may not have been handled. */
function retrySafe(request: IncomingMessage): boolean {
  if (request.method === 'GET' || request.method === 'HEAD') return true;
  // A second session or world identity is harmless; a second hop is not (the first may have moved the record).
  const path = (request.url ?? '').split('?')[0];
  return request.method === 'POST' && (path === '/api/session' || path === '/api/world/enter');
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(what)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}

async function readBody(request: IncomingMessage): Promise<Buffer | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return null;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** One upstream answer: a response, wrangler's "restarted mid-request" (to send again), or none. */
type Answer = { kind: 'response'; response: IncomingMessage } | { kind: 'restarted' } | { kind: 'unreached'; error: Error };

function forward(port: number, request: IncomingMessage, body: Buffer, agent: Agent): Promise<Answer> {
  return new Promise((resolve) => {
    let written = false;
    const upstream = httpRequest(
      {
        host: '127.0.0.1',
        port,
        method: request.method,
        path: request.url,
        headers: forwardedHeaders(request.rawHeaders, peerAddress(request.socket)) as unknown as Record<string, string>,
        agent,
      },
      (response) => {
        // wrangler's proxy, when the Worker reloaded under a request: "Your worker restarted
        // mid-request. Please try sending the request again." (503, Retry-After: 0, gzipped; the
        // Worker's own 503s carry no Retry-After).
        if (response.statusCode === 503 && response.headers['retry-after'] === '0') {
          response.resume();
          response.on('end', () => resolve({ kind: 'restarted' }));
          return;
        }
        resolve({ kind: 'response', response });
      },
    );
    upstream.on('finish', () => (written = true));
    upstream.on('error', (error) => {
      // Refused, or failed before the request was written: the Worker never saw it.
      if (!written || (error as NodeJS.ErrnoException).code === 'ECONNREFUSED') resolve({ kind: 'unreached', error });
      else resolve({ kind: 'unreached', error: Object.assign(error, { partial: true }) });
    });
    upstream.end(body);
  });
}

function answerText(response: ServerResponse, status: number, text: string): void {
  if (response.headersSent) {
    response.destroy();
    return;
  }
  response.writeHead(status, { 'content-type': 'text/plain; charset=utf-8', 'retry-after': '1' });
  response.end(text + '\n');
}

/** Counts requests sent again after a reload of wrangler's, and says so at most once a second. */
class RetryNotes {
  private count = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private readonly log: (line: string) => void;

  constructor(log: (line: string) => void) {
    this.log = log;
  }

  note(): void {
    this.count++;
    this.timer ??= setTimeout(() => {
      this.log(`Cairn: the Worker reloaded under ${this.count} request(s); the front sent them again`);
      this.count = 0;
      this.timer = null;
    }, 1000);
    (this.timer as { unref?: () => void }).unref?.();
  }
}

async function handle(
  request: IncomingMessage,
  response: ServerResponse,
  options: FrontOptions,
  agent: Agent,
  notes: RetryNotes,
): Promise<void> {
  const body = await readBody(request);
  if (body === null) return answerText(response, 413, `request body too large (the local server takes at most ${MAX_BODY_BYTES} bytes)`);
  for (let attempt = 0; ; attempt++) {
    let port: number;
    try {
      port = await withTimeout(options.upstream(), WAIT_FOR_WORKER_MS, 'the local Worker did not come back in time');
    } catch (error) {
      return answerText(response, 503, `the local server is restarting: ${(error as Error).message}`);
    }
    const answer = await forward(port, request, body, agent);
    if (answer.kind === 'response') {
      const upstream = answer.response;
      response.writeHead(upstream.statusCode ?? 502, upstream.statusMessage, upstream.rawHeaders);
      upstream.pipe(response);
      return;
    }
    // A reload of wrangler's takes a few hundred ms; a restart of the supervisor's, a few seconds (requests wait in upstream() then).
    const again = attempt < 5 && (answer.kind === 'restarted' ? retrySafe(request) : !('partial' in answer.error) || retrySafe(request));
    if (!again) {
      if (answer.kind === 'restarted') return answerText(response, 503, 'the Worker restarted mid-request; send it again');
      return answerText(response, 502, `the local Worker did not answer: ${answer.error.message}`);
    }
    if (answer.kind === 'restarted') notes.note();
    await new Promise((resolve) => setTimeout(resolve, 100 * (attempt + 1)));
  }
}

/** Proxies a WebSocket upgrade byte for byte once its request line and headers are rewritten. */
async function upgrade(request: IncomingMessage, socket: Socket, head: Buffer, options: FrontOptions): Promise<void> {
  socket.on('error', () => socket.destroy());
  let port: number;
  try {
    port = await withTimeout(options.upstream(), WAIT_FOR_WORKER_MS, 'the local Worker did not come back in time');
  } catch {
    socket.end('HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    return;
  }
  const headers = forwardedHeaders(request.rawHeaders, peerAddress(socket));
  let text = `${request.method} ${request.url} HTTP/${request.httpVersion}\r\n`;
  for (let i = 0; i < headers.length; i += 2) text += `${headers[i]}: ${headers[i + 1]}\r\n`;
  const upstream = connect({ host: '127.0.0.1', port });
  upstream.setNoDelay(true);
  socket.setNoDelay(true);
  upstream.on('connect', () => {
    upstream.write(text + '\r\n');
    if (head.length) upstream.write(head);
    socket.pipe(upstream);
    upstream.pipe(socket);
  });
  upstream.on('error', () => {
    if (!socket.destroyed && socket.bytesWritten === 0)
      socket.end('HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });
  upstream.on('close', () => socket.destroy());
  socket.on('close', () => upstream.destroy());
}

/** Starts the front; resolves once it listens. */
export function startFront(options: FrontOptions): Promise<Server> {
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const server = createServer({ noDelay: true });
  const notes = new RetryNotes(options.log ?? (() => undefined));
  server.on('request', (request, response) => {
    handle(request, response, options, agent, notes).catch((error: Error) => answerText(response, 502, error.message));
  });
  server.on('upgrade', (request: IncomingMessage, socket: Socket, head: Buffer) => {
    void upgrade(request, socket, head, options);
  });
  server.on('clientError', (_error, socket) => socket.destroy());
  server.on('close', () => agent.destroy());
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.ip, () => {
      server.off('error', reject);
      resolve(server);
    });
  });
}

import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/**
 * A media host for the tests: a real HTTP server on 127.0.0.1 and a free port, answering each
 * path with its handler (404 otherwise), counting requests per path, and noting the responses
 * whose connection went away before they were finished (a download that stopped reading).
 */
export class MediaServer {
  readonly hits = new Map<string, number>();
  readonly cutShort = new Set<string>();
  readonly #routes = new Map<string, Handler>();
  readonly #server: Server;
  port = 0;

  constructor() {
    this.#server = createServer((request, response) => {
      const path = new URL(request.url ?? '/', 'http://x').pathname;
      this.hits.set(path, (this.hits.get(path) ?? 0) + 1);
      response.on('close', () => {
        if (!response.writableFinished) this.cutShort.add(path);
      });
      const handler = this.#routes.get(path);
      if (handler === undefined) response.writeHead(404, { 'content-type': 'text/html' }).end('<html>Not found</html>');
      else handler(request, response);
    });
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    this.port = (this.#server.address() as AddressInfo).port;
    return this;
  }

  url(path: string, host = '127.0.0.1'): string {
    return `http://${host}:${this.port}${path}`;
  }

  /** The file at `path`, with its Content-Length and Content-Type. */
  file(path: string, bytes: Buffer, contentType = 'application/octet-stream'): this {
    return this.on(path, (_request, response) => {
      response.writeHead(200, { 'content-type': contentType, 'content-length': bytes.length }).end(bytes);
    });
  }

  /** A body sent in chunks with no Content-Length, without end: only the reader's cap stops it. */
  endless(path: string, contentType = 'image/png'): this {
    return this.on(path, (_request, response) => {
      response.writeHead(200, { 'content-type': contentType });
      const chunk = Buffer.alloc(16 * 1024, 0x41);
      const pump = () => {
        while (!response.destroyed && response.write(chunk));
        if (!response.destroyed) response.once('drain', pump);
      };
      pump();
    });
  }

  redirect(path: string, location: string, status = 302): this {
    return this.on(path, (_request, response) => response.writeHead(status, { location }).end());
  }

  /** Headers, then nothing: the download's deadline has to end it. */
  stall(path: string): this {
    return this.on(path, (_request, response) => response.writeHead(200, { 'content-type': 'image/png' }).flushHeaders());
  }

  on(path: string, handler: Handler): this {
    this.#routes.set(path, handler);
    return this;
  }

  async close(): Promise<void> {
    this.#server.closeAllConnections();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}

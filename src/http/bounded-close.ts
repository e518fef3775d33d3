import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** How long requests in flight get to finish once a server stops: then their connections are cut. */
export const CLOSE_GRACE_MS = 5_000;

/** Closes an HTTP server without waiting on connections that have nothing left to answer. */
export interface BoundedClose {
  /** Runs `closeServer` (which stops listening and waits for every connection to end) and ends the connections meanwhile. */
  close(closeServer: () => Promise<void>): Promise<void>;
}

/**
 * Keeps the close of `server` short: call it before the server listens. Node's server.close() waits for every connection,
 * and reaps only those idle at the moment it is called. A keep-alive connection whose response is still in flight then (a
 * webhook POST finishing its XADD) turns idle a moment later and stays open until the keep-alive timeout (fastify's 72 s,
 * which it tells the client, who keeps to it too); one that never sent a request (a browser's preconnect) stays until its
 * client leaves. So, once closing: a connection with no request in flight is dropped at once, the others just after their
 * last response, and whatever is left after `graceMs` (a request never completed) is cut.
 */
export function boundedClose(server: Server, graceMs: number = CLOSE_GRACE_MS): BoundedClose {
  /** Every open connection, with how many of its requests have not been answered yet. */
  const inFlight = new Map<Socket, number>();
  let closing = false;
  server.on('connection', (socket: Socket) => {
    inFlight.set(socket, 0);
    socket.once('close', () => inFlight.delete(socket));
  });
  server.on('request', (request, response) => {
    const { socket } = request;
    inFlight.set(socket, (inFlight.get(socket) ?? 0) + 1);
    // 'close' comes once the response is written (or the connection is gone): nothing of it is left to send.
    response.once('close', () => {
      const requests = inFlight.get(socket);
      if (requests === undefined) return;
      const left = requests - 1;
      inFlight.set(socket, left);
      if (closing && left === 0) socket.destroy();
    });
  });
  return {
    async close(closeServer) {
      closing = true;
      for (const [socket, requests] of inFlight) if (requests === 0) socket.destroy();
      const cut = setTimeout(() => {
        for (const socket of inFlight.keys()) socket.destroy();
      }, graceMs);
      try {
        await closeServer();
      } finally {
        clearTimeout(cut);
      }
    },
  };
}

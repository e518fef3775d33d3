import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import { AppError } from '../errors/app-error.js';
import { PROBLEM_CONTENT_TYPE, problemOf, type Problem } from '../api/problem.js';

/**
 * A path segment may be as long as a request line may be (Node's default header limit): an
 * over-long ID then reaches its route, whose schema refuses it after the caller is known,
 * instead of the router answering first.
 */
export const MAX_PARAM_LENGTH = 16 * 1024;

/**
 * The server's options for what the router and Node's HTTP parser refuse before any route is
 * found: a malformed `%` escape (400), a path segment too long (414), a URL and headers too
 * large (431), a request too slow (408). Each is an RFC 9457 problem document with a stable
 * code, like every other refusal of the API, instead of fastify's own JSON.
 */
export function routerErrorOptions(): Pick<FastifyServerOptions, 'routerOptions' | 'frameworkErrors' | 'clientErrorHandler'> {
  return {
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    frameworkErrors: (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
      const problem = problemOf(routerError(error), request.url.split('?')[0]);
      void reply.code(problem.status).header('cache-control', 'no-store').type(PROBLEM_CONTENT_TYPE).send(problem);
    },
    clientErrorHandler: answerClientError,
  };
}

function routerError(error: FastifyError): unknown {
  if (error.code === 'FST_ERR_BAD_URL') return new AppError('API_REQUEST_INVALID', 'The path has a malformed %-escape');
  if (error.code === 'FST_ERR_MAX_PARAM_LENGTH')
    return new AppError('API_URI_TOO_LONG', `A path segment is longer than ${MAX_PARAM_LENGTH} characters`);
  return error;
}

/**
 * A request Node could not read (no request object exists yet): answered on the socket, which
 * is then closed, as Node itself does. A connection reset needs no answer: nobody would read it.
 */
function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const problem = problemOf(clientError(error));
  if (socket.writable) socket.write(rawAnswer(problem));
  socket.destroy(error);
}

function clientError(error: Error & { code?: string }): AppError {
  if (error.code === 'HPE_HEADER_OVERFLOW')
    return new AppError('API_HEADERS_TOO_LARGE', 'The URL and headers are larger than this server reads; shorten the query or headers');
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT')
    return new AppError('API_REQUEST_TIMEOUT', 'The request did not arrive whole in time; the connection is closed');
  return new AppError('API_REQUEST_INVALID', 'The request is not valid HTTP/1.1');
}

function rawAnswer(problem: Problem): string {
  const body = JSON.stringify(problem);
  return [
    `HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? ''}`,
    `Content-Type: ${PROBLEM_CONTENT_TYPE}`,
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Cache-Control: no-store',
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

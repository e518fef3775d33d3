import { AppError } from '../errors/app-error.js';

/** Why a server could not listen, for the operator (a taken port is the usual reason), or the error as it was. */
export function listenFailure(error: unknown, host: string, port: number): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'EADDRINUSE') {
    return new AppError(
      'PORT_IN_USE',
      `port ${port} on ${host} is in use by another process; stop it or choose another --port (0 picks a free one)`,
      { cause: error },
    );
  }
  if (code === 'EADDRNOTAVAIL' || code === 'EACCES' || code === 'ENOTFOUND' || code === 'EAI_AGAIN') {
    return new AppError(
      'PORT_IN_USE',
      `cannot listen on ${host}:${port} (${code}): the address is not on this host, or the ` +
        `port needs privileges; choose another --host or --port`,
      { cause: error },
    );
  }
  return error;
}

/** A wildcard bind is reached through loopback; IPv6 literals need brackets in a URL. */
export function urlHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}

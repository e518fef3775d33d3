/**
 * The methods each path of the API answers, learnt from the routes as they are registered, so
 * that a request with a method its path lacks gets 405 with `Allow` (RFC 9110 §15.5.6)
 * instead of 404, which would say the resource does not exist.
 */
export class AllowedMethods {
  readonly #routes: { pattern: RegExp; methods: Set<string> }[] = [];

  /** A route as fastify registers it (`/api/v1/campaigns/:id`, its method or methods). */
  add(url: string, method: string | readonly string[]): void {
    const pattern = pathPattern(url);
    let route = this.#routes.find((known) => known.pattern.source === pattern.source);
    if (route === undefined) {
      route = { pattern, methods: new Set() };
      this.#routes.push(route);
    }
    for (const one of typeof method === 'string' ? [method] : method) route.methods.add(one.toUpperCase());
  }

  /** The methods some route answers at `path` (no query), sorted; none: no route has this path. */
  at(path: string): string[] {
    const methods = new Set<string>();
    for (const route of this.#routes) if (route.pattern.test(path)) for (const method of route.methods) methods.add(method);
    // fastify answers HEAD wherever it answers GET.
    if (methods.has('GET')) methods.add('HEAD');
    return [...methods].sort();
  }
}

/** fastify's path (`/campaigns/:id`, `::` an escaped colon) as a regular expression of the paths it matches. */
function pathPattern(url: string): RegExp {
  const source = url
    .split('::')
    .map((part) =>
      part
        .split(/(:[A-Za-z_$][\w$]*(?:\([^)]*\))?|\*)/)
        .map((piece) => {
          if (piece === '*') return '.*';
          if (piece.startsWith(':')) return '[^/]+';
          return piece.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        })
        .join(''),
    )
    .join(':');
  return new RegExp(`^${source}$`);
}

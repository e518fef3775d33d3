/**
 * One promise per key for everyone who asks while it runs: concurrent callers share the work
 * (one download, one upload). `keep`: the settled value stays for later callers too (a
 * campaign's memo); otherwise the entry goes as soon as it settles. A rejection never stays:
 * it is a failure of the moment (a Redis or Graph error), and the next caller tries again.
 */
export function sharedPromise<T>(map: Map<string, Promise<T>>, key: string, make: () => Promise<T>, keep: boolean): Promise<T> {
  const running = map.get(key);
  if (running !== undefined) return running;
  const promise = make();
  map.set(key, promise);
  const forget = () => {
    if (map.get(key) === promise) map.delete(key);
  };
  promise.then(keep ? () => undefined : forget, forget);
  return promise;
}

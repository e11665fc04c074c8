/** Per run signal: the controllers of the calls in flight that follow it, through one listener. */
const followers = new WeakMap<AbortSignal, Set<AbortController>>();

/**
 * A signal of one call's own that aborts with `signal`. The MCP SDK adds an abort listener per
 * request and never removes it; giving it this signal keeps the run's signal free of them (no
 * leak, no MaxListenersExceededWarning however many calls a run makes). Call `release` when done.
 */
export function followSignal(signal: AbortSignal): { signal: AbortSignal; release: () => void } {
  let set = followers.get(signal);
  if (!set) {
    const created = new Set<AbortController>();
    followers.set(signal, created);
    signal.addEventListener(
      'abort',
      () => {
        for (const controller of created) controller.abort(signal.reason);
        created.clear();
      },
      { once: true },
    );
    set = created;
  }
  const controller = new AbortController();
  if (signal.aborted) controller.abort(signal.reason);
  else set.add(controller);
  const owner = set;
  return { signal: controller.signal, release: () => owner.delete(controller) };
}

/** Waits for a promise, or rejects with the signal's reason as soon as it is aborted. */
export function untilAborted<T>(promise: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return promise;
  if (signal.aborted) return Promise.reject(signal.reason as Error);
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

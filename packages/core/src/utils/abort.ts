import { setMaxListeners } from 'node:events';

/** An AbortController that also aborts when `parent` does; `dispose` detaches it. */
export interface LinkedAbortController extends AbortController {
  dispose(): void;
}

export function linkedAbortController(
  parent: AbortSignal | undefined,
  options?: { manyListeners?: boolean },
): LinkedAbortController {
  const controller = new AbortController() as LinkedAbortController;
  // Every branch of a fan-out (and every model or tool call in it) listens to one signal; hundreds
  // of listeners are expected there, not a leak.
  if (options?.manyListeners) setMaxListeners(0, controller.signal);
  if (!parent) {
    controller.dispose = () => undefined;
    return controller;
  }
  if (parent.aborted) {
    controller.abort(parent.reason);
    controller.dispose = () => undefined;
    return controller;
  }
  const onAbort = (): void => controller.abort(parent.reason);
  parent.addEventListener('abort', onAbort, { once: true });
  controller.dispose = () => parent.removeEventListener('abort', onAbort);
  return controller;
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

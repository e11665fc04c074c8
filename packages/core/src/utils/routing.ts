import { RoutingError } from '../errors.js';

/** What a router is told when its previous choice failed before producing anything. */
export interface RoutingErrorContext {
  failedKeys: ReadonlySet<string>;
  lastError: unknown;
}

interface RouteOptions<T, E> {
  /** Who routes, for messages: "RoutedAgent 'Support'". */
  owner: string;
  candidates: Readonly<Record<string, T>>;
  choose(errorContext: RoutingErrorContext | undefined): Promise<string | undefined> | string | undefined;
  run(key: string, candidate: T, fallbackFrom: ReadonlySet<string>): AsyncGenerator<E, void, undefined>;
  /** Errors that must never trigger a fallback (cancellation, run limits). */
  isFatal(error: unknown): boolean;
}

/**
 * The routing rules shared by RoutedAgent and RoutedLlm (seed 003): the router is called once
 * without errorContext; if the chosen candidate fails before yielding anything, it is called again
 * with the failed keys and the last error. A failure after something was yielded propagates. A key
 * that already failed, an unknown key, or `undefined` propagates the last error — on the first call,
 * an unknown key or `undefined` is a {@link RoutingError}.
 */
export async function* routeWithFailover<T, E>(options: RouteOptions<T, E>): AsyncGenerator<E, void, undefined> {
  const { owner, candidates } = options;
  const failed = new Set<string>();
  let lastError: unknown;
  for (;;) {
    const first = failed.size === 0;
    const key = await options.choose(first ? undefined : { failedKeys: failed, lastError });
    if (key === undefined || !Object.hasOwn(candidates, key) || failed.has(key)) {
      if (!first) throw lastError;
      const known = Object.keys(candidates).join(', ');
      throw new RoutingError(
        key === undefined
          ? `The router of ${owner} chose nothing (returned undefined). Return one of: ${known}.`
          : `The router of ${owner} chose '${key}', which is not one of its options: ${known}. Return one of these keys.`,
      );
    }
    let yielded = false;
    try {
      for await (const item of options.run(key, candidates[key]!, failed)) {
        yielded = true;
        yield item;
      }
      return;
    } catch (error) {
      // Once something was produced, a retry would duplicate or contradict it.
      if (yielded || options.isFatal(error)) throw error;
      failed.add(key);
      lastError = error;
    }
  }
}

/** Keys an array of named things by name (or model id), rejecting duplicates. */
export function keyed<T>(
  owner: string,
  items: Readonly<Record<string, T>> | readonly T[],
  keyOf: (item: T) => string,
): Record<string, T> {
  if (!Array.isArray(items)) return { ...(items as Record<string, T>) };
  const out: Record<string, T> = {};
  for (const item of items as readonly T[]) {
    const key = keyOf(item);
    if (Object.hasOwn(out, key))
      throw new RoutingError(
        `${owner} got two options keyed '${key}'. Pass a record with distinct keys instead of an array.`,
      );
    out[key] = item;
  }
  return out;
}

/**
 * Waiting for events in tests, instead of sleeping a fixed time and hoping they happened: on a busy
 * machine a sleep is sometimes too short. Every wait here is bounded and names what it waited for.
 * Tests of other packages import it too (their packages build on core).
 */

/** A promise with its resolve and reject at hand, for a test to settle from outside (a gate, a "started" signal). */
export interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

export function deferred<T = void>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

/** Polls `check` every 10 ms until it holds; fails after `timeoutMs` naming `what`. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * A meeting point for `count` concurrent parties: `arrive()` resolves once all of them arrived, so
 * work that must overlap provably does (each waits for the others) without comparing timestamps.
 * Fails after `timeoutMs` when some never came, i.e. they did not run at the same time.
 */
export function barrier(count: number, what: string, timeoutMs = 10_000): { arrive: () => Promise<void> } {
  let arrived = 0;
  const all = deferred();
  return {
    arrive: async () => {
      if (++arrived >= count) all.resolve();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(
          () => reject(new Error(`Only ${arrived} of ${count} ${what} arrived within ${timeoutMs} ms.`)),
          timeoutMs,
        );
      });
      try {
        await Promise.race([all.promise, late]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

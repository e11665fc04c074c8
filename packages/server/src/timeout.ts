/**
 * Settles as `work` does, or rejects with `onTimeout()` once `ms` have passed, whichever comes
 * first. The timer is cleared either way, so it never keeps the process alive. `work` itself is
 * not stopped (a hung store call cannot be); a late rejection of it is ignored.
 */
export async function withTimeout<T>(work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  work.catch(() => undefined);
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

import { setTimeout as sleep } from 'node:timers/promises';

/** Polls `check` every 20 ms until it holds; throws naming `what` after `limitMs`. */
export async function until(check: () => Promise<boolean>, what: string, limitMs = 10_000): Promise<void> {
  const deadline = Date.now() + limitMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

import { RunWorker, type RunWorkerOptions } from '@troupe/queue';

/**
 * A started {@link RunWorker} with the settings these tests share: a short lock (2 s), so a lost
 * worker's run is free again soon, and no sweeping (each test drives what happens when).
 */
export async function startWorker(options: RunWorkerOptions): Promise<RunWorker> {
  const worker = new RunWorker({ lockDurationMs: 2_000, sweepIntervalMs: 0, ...options });
  await worker.start();
  return worker;
}

/** The last run queued on each working folder of this process. */
const tails = new Map<string, Promise<unknown>>();

/**
 * Runs `task` after every earlier task of the same folder has settled: runs of one workspace take
 * turns (two calls of one model turn run at once otherwise), so each reports only the files it wrote.
 */
export async function withFolderLock<T>(folder: string, task: () => Promise<T>): Promise<T> {
  const previous = tails.get(folder) ?? Promise.resolve();
  const run = previous.then(task, task);
  const tail = run.then(
    () => undefined,
    () => undefined,
  );
  tails.set(folder, tail);
  try {
    return await run;
  } finally {
    // The last of the queue removes it, so the map holds only folders with runs in flight.
    if (tails.get(folder) === tail) tails.delete(folder);
  }
}

import type { CliIo } from './io.js';

/** Resolves on Ctrl-C (through `io`) or SIGTERM, whichever comes first. */
export function stopRequested(io: CliIo): Promise<void> {
  return new Promise((resolveStop) => {
    const stop = () => {
      stopListening();
      process.off('SIGTERM', stop);
      resolveStop();
    };
    const stopListening = io.onInterrupt(stop);
    process.once('SIGTERM', stop);
  });
}

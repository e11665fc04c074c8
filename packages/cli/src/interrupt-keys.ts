import type { Conversation } from './conversation.js';
import { ExitCode } from './exit-codes.js';
import type { CliIo } from './io.js';

/** What the first Ctrl-C during a turn prints, at once, before the run has stopped. */
export const CANCELLING_LINE = 'Cancelling… (Ctrl-C again to quit)';

/**
 * The Ctrl-C handler of `troupe run`: while a turn runs, the first press cancels it (saying so at
 * once; the run stores its cancellation) and a second one quits on the spot with exit code 130;
 * with no turn running, `whenIdle` decides (leave the chat, stop reading answers).
 * `beforePrint` erases a progress line first.
 */
export function interruptHandler(
  io: CliIo,
  conversation: () => Conversation,
  whenIdle: () => void,
  beforePrint: () => void = () => {},
): () => void {
  return () => {
    const turn = conversation();
    if (turn.cancelling) {
      beforePrint();
      io.stderr.write('Quit.\n');
      quit(io, ExitCode.cancelled);
      return;
    }
    if (turn.cancel()) {
      beforePrint();
      io.stderr.write(`${CANCELLING_LINE}\n`);
      return;
    }
    whenIdle();
  };
}

/** Ends the process with `code` now, through `io.exit` (tests' fake terminals may have none). */
export function quit(io: CliIo, code: number): void {
  io.exit?.(code);
}

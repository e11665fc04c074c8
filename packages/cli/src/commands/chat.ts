import { createInterface } from 'node:readline';
import type { Runner } from '@troupe/core';
import type { EventSink } from '../event-sinks.js';
import { ExitCode } from '../exit-codes.js';
import type { CliIo, TextOutput } from '../io.js';
import { outcomeMessage, runTurn } from '../run-turn.js';

/** What {@link chat} talks to. */
export interface ChatOptions {
  runner: Runner;
  userId: string;
  sessionId: string;
  sink: EventSink;
  io: CliIo;
  /** Where the prompt goes: stdout for the transcript, stderr when stdout carries JSON. */
  promptOutput: TextOutput;
}

/** The words that end a chat (besides Ctrl-D). */
export const EXIT_WORDS: ReadonlySet<string> = new Set(['exit', 'quit']);

/**
 * The interactive loop: reads a line, runs it as one turn (streamed through the sink), repeats
 * until `exit`, `quit` or end of input. Ctrl-C cancels the running turn, or at the prompt ends
 * the chat. A failed turn is shown and the chat goes on. The prompt is shown only when a person
 * types at a terminal; piped input gives a plain transcript.
 */
export async function chat(options: ChatOptions): Promise<number> {
  const { runner, userId, sessionId, sink, io, promptOutput } = options;
  const terminal = io.stdin.isTTY === true && promptOutput.isTTY === true;
  const rl = createInterface({ input: io.stdin, output: promptOutput, terminal, prompt: 'you> ' });
  let turn: AbortController | undefined;
  const onInterrupt = (): void => {
    if (turn) turn.abort();
    else rl.close();
  };
  rl.on('SIGINT', onInterrupt);
  const stopListening = io.onInterrupt(onInterrupt);
  const lines = rl[Symbol.asyncIterator]();
  io.stderr.write(`Chatting with ${runner.agent.name} (app '${runner.appName}', session '${sessionId}', user '${userId}'). Type 'exit' or 'quit' to leave.\n`);
  try {
    for (;;) {
      if (terminal) rl.prompt();
      const next = await lines.next();
      if (next.done) {
        if (terminal) promptOutput.write('\n');
        break;
      }
      const message = next.value.trim();
      if (message === '') continue;
      if (EXIT_WORDS.has(message.toLowerCase())) break;
      turn = new AbortController();
      const outcome = await runTurn(runner, { userId, sessionId, message, abortSignal: turn.signal }, sink);
      turn = undefined;
      const line = outcomeMessage(outcome, sink);
      if (line) io.stderr.write(`${line}\n`);
    }
  } finally {
    stopListening();
    rl.close();
  }
  return ExitCode.ok;
}

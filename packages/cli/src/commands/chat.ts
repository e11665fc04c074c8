import type { Event, InterruptInfo, Runner } from '@troupe/core';
import { Conversation } from '../conversation.js';
import type { EventSink } from '../event-sinks.js';
import { ExitCode } from '../exit-codes.js';
import type { CliIo, TextOutput } from '../io.js';
import { CliUsageError } from '../errors.js';
import { interruptHandler } from '../interrupt-keys.js';
import { createLineReader } from '../line-reader.js';
import { oneShotMessage, type TurnMessage } from '../run-input.js';
import { outcomeMessage, type TurnOutcome } from '../run-turn.js';
import { PLAIN_STYLE, type TextStyle } from '../terminal-style.js';

/** What {@link chat} talks to. */
export interface ChatOptions {
  runner: Runner;
  userId: string;
  sessionId: string;
  sink: EventSink;
  io: CliIo;
  /** Where the prompt and the questions of interrupts go: stdout for the transcript, stderr when stdout carries JSON. */
  promptOutput: TextOutput;
  /** Interrupts the session already waits on (a continued session); asked before the first prompt. */
  openInterrupts?: readonly InterruptInfo[];
  /** The session's stored events, which name the workflow nodes that asked those interrupts. @default none */
  history?: readonly Event[];
  /** How to answer later, shown when the chat ends with interrupts still open. */
  resumeHint?: string;
  /** Colours of the prompt and the questions (on `promptOutput`). @default no colour */
  style?: TextStyle;
  /** Called before a Ctrl-C notice prints (erases a progress line). */
  beforeNotice?: () => void;
}

/** The words that end a chat (besides Ctrl-D). */
export const EXIT_WORDS: ReadonlySet<string> = new Set(['exit', 'quit']);

/**
 * The interactive loop: reads a line, runs it as one turn (streamed through the sink), repeats
 * until `exit`, `quit` or end of input. When a turn pauses for a human, its interrupts are asked
 * at the prompt and the run resumes with the answers. Ctrl-C cancels the running turn (a second
 * one quits), or at the prompt ends the chat. A failed turn is shown and the chat goes on. The `you>` prompt is shown
 * only when a person types at a terminal; piped input gives a plain transcript (questions and
 * their answers included). Returns 0, or 4 when the chat ends with interrupts unanswered.
 */
export async function chat(options: ChatOptions): Promise<number> {
  const { runner, userId, sessionId, sink, io, promptOutput } = options;
  const style = options.style ?? PLAIN_STYLE;
  const reader = createLineReader(
    io,
    promptOutput,
    interruptHandler(
      io,
      () => conversation,
      () => reader.close(),
      options.beforeNotice,
    ),
  );
  const conversation = new Conversation({
    runner,
    userId,
    sessionId,
    sink,
    io,
    reader,
    style,
    history: options.history,
  });
  const prompt = `${style.paint('user', 'you>')} `;
  io.stderr.write(
    `Chatting with ${runner.agent.name} (app '${runner.appName}', session '${sessionId}', user '${userId}'). Type 'exit' or 'quit' to leave.\n`,
  );
  const report = (outcome: TurnOutcome): void => {
    const line = outcomeMessage(outcome, sink, options.resumeHint);
    if (line) io.stderr.write(`${line}\n`);
  };
  try {
    const waiting = options.openInterrupts ?? [];
    if (waiting.length > 0) {
      io.stderr.write(
        `Session '${sessionId}' is waiting for ${waiting.length === 1 ? 'an answer' : `${waiting.length} answers`}.\n`,
      );
      const outcome = await conversation.answer({
        status: 'interrupted',
        interrupts: [...waiting],
        errorEventShown: false,
      });
      report(outcome);
      if (outcome.status === 'interrupted') return ExitCode.interrupted;
    }
    for (;;) {
      const line = await reader.read(prompt);
      if (line === undefined) break;
      const message = line.trim();
      if (message === '') continue;
      if (EXIT_WORDS.has(message.toLowerCase())) break;
      // An agent that takes a structured input gets each line as a JSON object.
      let turn: TurnMessage;
      try {
        turn = oneShotMessage('the message', message, runner.agent);
      } catch (error) {
        if (!(error instanceof CliUsageError)) throw error;
        io.stderr.write(`${error.message}\n`);
        continue;
      }
      const outcome = await conversation.send(turn);
      report(outcome);
      if (outcome.status === 'interrupted') return ExitCode.interrupted;
    }
  } finally {
    reader.close();
  }
  return ExitCode.ok;
}

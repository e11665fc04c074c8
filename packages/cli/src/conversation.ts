import type { Event, InterruptInfo, Runner } from '@troupe/core';
import type { EventSink } from './event-sinks.js';
import {
  confirmationQuestion,
  INPUT_PROMPT,
  inputRequestText,
  parseConfirmation,
  parseRequestAnswer,
  rejectedRequests,
} from './interrupt-prompt.js';
import type { CliIo } from './io.js';
import type { LineReader } from './line-reader.js';
import type { TurnMessage } from './run-input.js';
import { PLAIN_STYLE, type TextStyle } from './terminal-style.js';
import { isRejectedAnswer, resumeTurn, runTurn, type TurnOutcome } from './run-turn.js';
import { nodeRequests, rememberAsker } from './workflow-nodes.js';

/** What a {@link Conversation} talks to. */
export interface ConversationOptions {
  runner: Runner;
  userId: string;
  sessionId: string;
  sink: EventSink;
  io: CliIo;
  /** Where open interrupts are asked; without one they are left open for later. */
  reader?: LineReader | undefined;
  /** Colours of the questions. @default no colour */
  style?: TextStyle | undefined;
  /**
   * The session's stored events, when it continues: a workflow question left open by an earlier
   * run is asked in the name of the node that asked it. @default none
   */
  history?: readonly Event[] | undefined;
}

/**
 * Turns of one session at the terminal: runs a message, and while the run is paused asks each
 * open interrupt at the prompt (a confirmation as `[y/N]`, an input request as a line of JSON or
 * text), resumes it with the answers and shows the rest like a turn. An answer the runner refuses
 * is reported and asked again. Ctrl-C ({@link cancel}) cancels the running turn.
 *
 * @example
 * const reader = createLineReader(io, io.stdout, () => conversation.cancel() || reader.close());
 * const conversation = new Conversation({ runner, userId, sessionId, sink: transcriptSink(io), io, reader });
 * const outcome = await conversation.send('Send 500 to Bob'); // asks "Allow transfer_money(...)? [y/N]"
 */
export class Conversation {
  private running: AbortController | undefined;
  /** Which workflow node asked each question (interrupt id → node name). */
  private readonly askers: Map<string, string>;
  private readonly sink: EventSink;

  constructor(private readonly options: ConversationOptions) {
    this.askers = nodeRequests(options.history ?? []);
    const { sink } = options;
    this.sink = {
      ...sink,
      write: (event) => {
        rememberAsker(this.askers, event);
        sink.write(event);
      },
    };
  }

  /** Cancels the running turn or resume. Returns false when nothing was running. */
  cancel(): boolean {
    if (!this.running) return false;
    this.running.abort();
    return true;
  }

  /** True while a turn runs that {@link cancel} was already asked to stop. */
  get cancelling(): boolean {
    return this.running?.signal.aborted === true;
  }

  /**
   * Runs one message (text, or a structured input), then answers the interrupts it raised while
   * a reader is there to ask them.
   */
  async send(message: string | TurnMessage): Promise<TurnOutcome> {
    const { runner, userId, sessionId } = this.options;
    const sink = this.sink;
    const what = typeof message === 'string' ? { text: message } : message;
    const request = 'text' in what ? { message: what.content ?? what.text } : { input: what.input };
    const outcome = await this.track((abortSignal) =>
      runTurn(runner, { userId, sessionId, ...request, abortSignal }, sink),
    );
    return outcome.status === 'interrupted' ? this.answer(outcome) : outcome;
  }

  /**
   * Asks the open interrupts of `paused`, resumes with the answers, and repeats while the run
   * pauses again. Returns how the run ended; still `'interrupted'` when the input ended (or
   * Ctrl-C was pressed) before every question was answered, or when there is no reader.
   */
  async answer(paused: TurnOutcome): Promise<TurnOutcome> {
    const { runner, userId, sessionId, io, reader } = this.options;
    const sink = this.sink;
    let outcome = paused;
    while (outcome.status === 'interrupted' && reader) {
      const open = outcome.interrupts;
      const style = this.options.style ?? PLAIN_STYLE;
      const responses = await ask(open, reader, style, this.askers);
      if (!responses) return outcome;
      for (;;) {
        const resumed = await this.track((abortSignal) =>
          resumeTurn(runner, { userId, sessionId, responses, abortSignal }, sink),
        );
        if (!isRejectedAnswer(resumed)) {
          outcome = resumed;
          break;
        }
        io.stderr.write(`${resumed.error!.message} Answer again.\n`);
        const again = await ask(rejectedRequests(open, resumed.error!.message), reader, style, this.askers);
        if (!again) return outcome;
        Object.assign(responses, again);
      }
    }
    return outcome;
  }

  private async track(turn: (signal: AbortSignal) => Promise<TurnOutcome>): Promise<TurnOutcome> {
    this.running = new AbortController();
    try {
      return await turn(this.running.signal);
    } finally {
      this.running = undefined;
    }
  }
}

/** Asks each interrupt in turn. Resolves with the answers by id, or undefined when the input ended first. */
async function ask(
  interrupts: readonly InterruptInfo[],
  reader: LineReader,
  style: TextStyle,
  askers: ReadonlyMap<string, string>,
): Promise<Record<string, unknown> | undefined> {
  const responses: Record<string, unknown> = {};
  for (const interrupt of interrupts) {
    if (interrupt.kind === 'confirmation') {
      const question = confirmationQuestion(interrupt);
      // Lines before the question's last (the code to run) are written first: the prompt is one line.
      const lastBreak = question.lastIndexOf('\n');
      if (lastBreak >= 0) reader.write(`${style.paint('approval', question.slice(0, lastBreak))}\n`);
      // The question is coloured as an approval; the space the answer is typed after is not.
      const line = await reader.read(`${style.paint('approval', question.slice(lastBreak + 1).trimEnd())} `, {
        always: true,
      });
      if (line === undefined) return undefined;
      responses[interrupt.id] = parseConfirmation(line);
      continue;
    }
    reader.write(`${style.paint('approval', inputRequestText(interrupt, askers).replace(/\n$/, ''))}\n`);
    let line: string | undefined;
    // An empty line is no answer: ask again.
    do line = await reader.read(INPUT_PROMPT, { always: true });
    while (line !== undefined && line.trim() === '');
    if (line === undefined) return undefined;
    responses[interrupt.id] = parseRequestAnswer(interrupt, line);
  }
  return responses;
}

import type { Event, InterruptInfo } from '@troupe/core';
import { AnswerText } from './answer-text.js';
import { interruptPrompt } from './interrupt-prompt.js';
import { openAiErrorBody, type OpenAiErrorBody } from './openai-error.js';

/** OpenAI's token usage of a completion. */
export interface CompletionUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
  completion_tokens_details: { reasoning_tokens: number };
}

/** Why the assistant message ended, in OpenAI's words. */
export type FinishReason = 'stop' | 'content_filter';

/** How a turn failed, was cancelled or hit a limit: an error of the server's side, with the run's own message and code. */
export interface TurnFailure {
  status: 500;
  body: OpenAiErrorBody;
}

/**
 * Reads a turn's events into one assistant message: the text deltas as they come (see
 * {@link AnswerText}), then at the end the question the turn paused on, and what the completion
 * reports (finish reason, usage, failure). Usage is summed over the turn's model calls:
 * `prompt_tokens` is Troupe's input tokens, `completion_tokens` its output tokens (reasoning
 * included, as OpenAI counts it, with `reasoning_tokens` the part that was reasoning).
 */
export class TurnReader {
  private readonly text = new AnswerText();
  private readonly interrupts: InterruptInfo[] = [];
  private readonly tokens = { input: 0, output: 0, cached: 0, thought: 0 };
  private error: Event | undefined;
  private output: unknown;

  /** The content deltas of one event. */
  read(event: Event): string[] {
    if (event.partial) return this.text.partial(event);
    if (event.errorCode !== undefined) {
      this.error = event;
      return [];
    }
    if (event.usage) {
      this.tokens.input += event.usage.inputTokens;
      this.tokens.output += event.usage.outputTokens;
      this.tokens.cached += event.usage.cachedTokens ?? 0;
      this.tokens.thought += event.usage.thoughtTokens ?? 0;
    }
    if (event.interrupt) this.interrupts.push(event.interrupt);
    if (event.output !== undefined) this.output = event.output;
    return this.text.final(event);
  }

  /**
   * The deltas that end the message: texts still waiting, the question a paused turn asks (after
   * what the agents said), or, for a turn whose agents said nothing (a workflow of functions), its
   * output as text.
   */
  finish(): string[] {
    const rest = this.text.end();
    if (this.interrupts.length > 0) return [...rest, this.text.separated(interruptPrompt(this.interrupts))];
    if (this.text.isEmpty && this.output !== undefined && this.error === undefined)
      return [this.text.separated(typeof this.output === 'string' ? this.output : JSON.stringify(this.output))];
    return rest;
  }

  /** The ids of the questions the turn paused on, for the `X-Troupe-Interrupt-Id` header. */
  get interruptIds(): string[] {
    return this.interrupts.map((interrupt) => interrupt.id);
  }

  /** A guardrail stopped the answer: OpenAI's `content_filter`. */
  get finishReason(): FinishReason {
    return this.error?.errorCode === 'GUARDRAIL_TRIPPED' ? 'content_filter' : 'stop';
  }

  /** How the turn failed, if it did (a tripped guardrail is an answer, not a failure). */
  get failure(): TurnFailure | undefined {
    const error = this.error;
    if (!error || error.errorCode === 'GUARDRAIL_TRIPPED') return undefined;
    const code = error.errorCode!;
    return {
      status: 500,
      body: openAiErrorBody(500, code, error.errorMessage ?? `The run failed (${code}).`, undefined),
    };
  }

  get usage(): CompletionUsage {
    const { input, output, cached, thought } = this.tokens;
    return {
      prompt_tokens: input,
      completion_tokens: output,
      total_tokens: input + output,
      prompt_tokens_details: { cached_tokens: cached },
      completion_tokens_details: { reasoning_tokens: thought },
    };
  }
}

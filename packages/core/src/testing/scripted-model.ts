import type { Content, Part } from '../events/content.js';
import { ConfigurationError, ModelError, TroupeError } from '../errors.js';
import { BaseLlm } from '../models/base-llm.js';
import type { LlmRequest, LlmResponse } from '../models/llm-request.js';
import { sleep } from '../utils/abort.js';

/** One scripted model answer. */
export type ScriptedReply =
  | string
  | { text: string; thought?: string }
  | { functionCalls: { name: string; args?: Record<string, unknown>; id?: string }[]; text?: string }
  | { chunks: string[] }
  | { error: string | Error; status?: number }
  | { delayMs: number; reply: ScriptedReply }
  | ((request: LlmRequest) => ScriptedReply | Promise<ScriptedReply>);

/**
 * A model for tests: answers with the scripted replies in order, records every request, is safe
 * under concurrency (each call takes the next reply when it starts), and fails on an unexpected
 * extra call or, in {@link assertDone}, on unused replies.
 *
 * @example
 * const model = new ScriptedModel([{ functionCalls: [{ name: 'add', args: { a: 1, b: 2 } }] }, 'The sum is 3.']);
 */
export class ScriptedModel extends BaseLlm {
  /** The requests received so far, in call order. */
  readonly requests: LlmRequest[] = [];
  private readonly replies: readonly ScriptedReply[];
  private calls = 0;

  constructor(replies: readonly ScriptedReply[], options?: { model?: string }) {
    super(options?.model ?? 'scripted');
    if (!Array.isArray(replies)) {
      throw new ConfigurationError(`ScriptedModel needs an array of replies; got ${typeof replies}.`);
    }
    this.replies = replies;
  }

  /** How many calls were made. */
  get callCount(): number {
    return this.calls;
  }

  /** Throws if some scripted replies were never used. */
  assertDone(): void {
    if (this.calls < this.replies.length) {
      throw new TroupeError(
        'SCRIPT_UNUSED',
        `ScriptedModel '${this.model}' was called ${this.calls} time(s) but ${this.replies.length} replies were scripted; ${this.replies.length - this.calls} unused. Remove them or check why the agent stopped early.`,
      );
    }
  }

  async *generateContentAsync(
    request: LlmRequest,
    stream = false,
    abortSignal?: AbortSignal,
  ): AsyncGenerator<LlmResponse> {
    const index = this.calls++;
    this.requests.push(request);
    const scripted = this.replies[index];
    if (scripted === undefined) {
      throw new TroupeError(
        'SCRIPT_EXHAUSTED',
        `ScriptedModel '${this.model}' got call #${index + 1} but only ${this.replies.length} replies were scripted. Last message: ${JSON.stringify(lastText(request.contents)).slice(0, 200)}. Add a reply or check why the agent called the model again.`,
      );
    }
    let reply = scripted;
    for (;;) {
      abortSignal?.throwIfAborted();
      if (typeof reply === 'function') {
        reply = await reply(request);
      } else if (typeof reply === 'object' && 'delayMs' in reply) {
        await sleep(reply.delayMs, abortSignal);
        reply = reply.reply;
      } else break;
    }
    const usage = (text: string) => ({
      inputTokens: estimateTokens(request),
      outputTokens: Math.ceil(text.length / 4),
    });
    if (typeof reply === 'string') {
      yield {
        content: { role: 'model', parts: [{ text: reply }] },
        usage: usage(reply),
        turnComplete: true,
        finishReason: 'STOP',
      };
      return;
    }
    if ('error' in reply) {
      const message = typeof reply.error === 'string' ? reply.error : reply.error.message;
      throw new ModelError(`Scripted model error${reply.status ? ` (status ${reply.status})` : ''}: ${message}`, {
        provider: 'scripted',
        ...(reply.status === undefined ? {} : { status: reply.status }),
        cause: reply.error,
      });
    }
    if ('chunks' in reply) {
      const text = reply.chunks.join('');
      if (stream) {
        for (const chunk of reply.chunks) {
          abortSignal?.throwIfAborted();
          yield { content: { role: 'model', parts: [{ text: chunk }] }, partial: true };
        }
      }
      yield {
        content: { role: 'model', parts: [{ text }] },
        usage: usage(text),
        turnComplete: true,
        finishReason: 'STOP',
      };
      return;
    }
    if ('functionCalls' in reply) {
      const parts: Part[] = [];
      if (reply.text) parts.push({ text: reply.text });
      reply.functionCalls.forEach((call, j) => {
        parts.push({
          functionCall: { id: call.id ?? `call_${index + 1}_${j + 1}`, name: call.name, args: call.args ?? {} },
        });
      });
      yield {
        content: { role: 'model', parts },
        usage: usage(JSON.stringify(reply.functionCalls)),
        turnComplete: true,
        finishReason: 'STOP',
      };
      return;
    }
    const parts: Part[] = [];
    if (reply.thought) parts.push({ text: reply.thought, thought: true });
    parts.push({ text: reply.text });
    const result = usage(reply.text);
    yield {
      content: { role: 'model', parts },
      usage: reply.thought ? { ...result, thoughtTokens: Math.ceil(reply.thought.length / 4) } : result,
      turnComplete: true,
      finishReason: 'STOP',
    };
  }
}

function estimateTokens(request: LlmRequest): number {
  let chars = request.config.systemInstruction?.length ?? 0;
  for (const content of request.contents)
    for (const part of content.parts) chars += 'text' in part ? part.text.length : JSON.stringify(part).length;
  return Math.ceil(chars / 4);
}

function lastText(contents: Content[]): string {
  for (let i = contents.length - 1; i >= 0; i--) {
    for (const part of contents[i]!.parts) if ('text' in part) return part.text;
  }
  return '';
}

import type { LlmResponse, Usage } from '@troupe/core';
import type { CompletionUsage } from 'openai/resources/completions';
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import { ResponseBuilder, ToolCallAssembler } from '../shared/response-builder.js';

/** Reasoning text as OpenAI-compatible servers send it (`reasoning_content`: DeepSeek, vLLM; `reasoning`: Ollama, OpenRouter). */
interface ReasoningFields {
  reasoning_content?: string | null;
  reasoning?: string | null;
}

/** Finish reasons in the Gemini vocabulary Troupe uses everywhere. */
export function finishReasonOf(reason: string | null | undefined): string | undefined {
  switch (reason) {
    case null:
    case undefined:
      return undefined;
    case 'stop':
    case 'tool_calls':
    case 'function_call':
      return 'STOP';
    case 'length':
      return 'MAX_TOKENS';
    case 'content_filter':
      return 'SAFETY';
    default:
      return 'OTHER';
  }
}

export function usageOf(usage: CompletionUsage | null | undefined): Usage | undefined {
  if (!usage) return undefined;
  const input = usage.prompt_tokens ?? 0;
  const completion = usage.completion_tokens ?? 0;
  const cached = usage.prompt_tokens_details?.cached_tokens;
  const reasoning = usage.completion_tokens_details?.reasoning_tokens;
  const apart =
    typeof reasoning === 'number' && reasoningCountedApart(input, completion, reasoning, usage.total_tokens);
  const result: Usage = { inputTokens: input, outputTokens: apart ? completion + reasoning : completion };
  if (typeof cached === 'number') result.cachedTokens = cached;
  if (typeof reasoning === 'number') result.thoughtTokens = reasoning;
  return result;
}

/**
 * Whether the server counted reasoning tokens apart from `completion_tokens`. OpenAI counts them
 * inside (`reasoning_tokens` is a part of `completion_tokens`, `total_tokens` = prompt + completion);
 * xAI and some others count them apart (`total_tokens` = prompt + completion + reasoning). The
 * reply itself tells which: by its total, or, without a telling one, by reasoning exceeding the
 * completion it would be a part of.
 */
function reasoningCountedApart(
  input: number,
  completion: number,
  reasoning: number,
  total: number | undefined,
): boolean {
  if (reasoning <= 0) return false;
  if (total === input + completion + reasoning) return true;
  if (total === input + completion) return false;
  // No total, or one that fits neither accounting: a part cannot exceed its whole.
  return reasoning > completion;
}

/** The Troupe response for a complete (non-streamed) chat completion. */
export function fromChatCompletion(completion: ChatCompletion): LlmResponse {
  const builder = new ResponseBuilder();
  const choice = completion.choices[0];
  if (choice) {
    const message = choice.message as typeof choice.message & ReasoningFields;
    builder.addThought(message.reasoning_content ?? message.reasoning);
    builder.addText(message.content);
    if (message.refusal) {
      builder.addText(message.refusal);
      builder.finishMessage = message.refusal;
    }
    for (const call of message.tool_calls ?? []) {
      if (call.type === 'function')
        builder.addCall({ id: call.id, name: call.function.name, args: call.function.arguments });
    }
    builder.finishReason = message.refusal ? 'SAFETY' : finishReasonOf(choice.finish_reason);
  }
  builder.usage = usageOf(completion.usage);
  return builder.build();
}

/** Folds streamed chunks into partial responses and, at the end, the complete response. */
export class ChatStreamAccumulator {
  private readonly builder = new ResponseBuilder();
  private readonly calls = new ToolCallAssembler<number>();
  /** Whether the server said why the turn ended; a stream without it was cut off. */
  finished = false;

  /** The partial responses (text and thought deltas) this chunk adds. */
  add(chunk: ChatCompletionChunk): LlmResponse[] {
    const out: LlmResponse[] = [];
    if (chunk.usage) this.builder.usage = usageOf(chunk.usage);
    const choice = chunk.choices[0];
    if (!choice) return out;
    const delta = choice.delta as typeof choice.delta & ReasoningFields;
    const thought = this.builder.addThought(delta.reasoning_content ?? delta.reasoning);
    if (thought) out.push(thought);
    const text = this.builder.addText(delta.content);
    if (text) out.push(text);
    if (delta.refusal) {
      const refusal = this.builder.addText(delta.refusal);
      if (refusal) out.push(refusal);
      this.builder.finishMessage = (this.builder.finishMessage ?? '') + delta.refusal;
    }
    (delta.tool_calls ?? []).forEach((call, position) => {
      this.calls.add(call.index ?? position, {
        id: call.id,
        name: call.function?.name,
        args: call.function?.arguments,
      });
    });
    if (choice.finish_reason) {
      this.finished = true;
      this.builder.finishReason = this.builder.finishMessage ? 'SAFETY' : finishReasonOf(choice.finish_reason);
    }
    return out;
  }

  /** The complete response: every delta once, the assembled calls, usage and finish reason. */
  final(): LlmResponse {
    this.calls.flushInto(this.builder);
    return this.builder.build();
  }
}

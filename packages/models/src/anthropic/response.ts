import type { LlmResponse, Usage } from '@troupe/core';
import type {
  Message,
  MessageDeltaUsage,
  RawContentBlockDeltaEvent,
  RawMessageStreamEvent,
  Usage as AnthropicUsage,
} from '@anthropic-ai/sdk/resources/messages';
import { ResponseBuilder, ToolCallAssembler } from '../shared/response-builder.js';
import { isRecord } from '../shared/tool-arguments.js';
import { THINKING_FIELD } from './request.js';

type ThinkingBlock =
  { type: 'thinking'; thinking: string; signature: string } | { type: 'redacted_thinking'; data: string };

export function finishReasonOf(reason: string | null | undefined): string | undefined {
  switch (reason) {
    case null:
    case undefined:
      return undefined;
    case 'end_turn':
    case 'stop_sequence':
    case 'tool_use':
      return 'STOP';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'MAX_TOKENS';
    case 'refusal':
      return 'SAFETY';
    default:
      return 'OTHER';
  }
}

/** Anthropic counts cache reads and writes apart from `input_tokens`; Troupe's inputTokens is the whole prompt. */
export function usageOf(usage: Partial<AnthropicUsage> | MessageDeltaUsage): Usage {
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  const result: Usage = {
    inputTokens: (usage.input_tokens ?? 0) + cacheRead + cacheWrite,
    outputTokens: usage.output_tokens ?? 0,
  };
  if (usage.cache_read_input_tokens !== undefined && usage.cache_read_input_tokens !== null)
    result.cachedTokens = cacheRead;
  if (cacheWrite > 0) result.cacheWriteTokens = cacheWrite;
  const thinking = usage.output_tokens_details?.thinking_tokens;
  if (typeof thinking === 'number') result.thoughtTokens = thinking;
  return result;
}

/** The Troupe response for a complete message. */
export function fromMessage(message: Message): LlmResponse {
  const builder = new ResponseBuilder();
  const thinking: ThinkingBlock[] = [];
  // Server tools' blocks (web search, code execution) are the provider's, not part of the Troupe turn.
  for (const block of message.content) {
    if (block.type === 'text') {
      builder.addText(block.text);
    } else if (block.type === 'thinking') {
      builder.addThought(block.thinking);
      thinking.push({ type: 'thinking', thinking: block.thinking, signature: block.signature });
    } else if (block.type === 'redacted_thinking') {
      thinking.push({ type: 'redacted_thinking', data: block.data });
    } else if (block.type === 'tool_use') {
      builder.addCall({ id: block.id, name: block.name, args: block.input as Record<string, unknown> });
    }
  }
  if (thinking.length > 0) attachThinking(builder, thinking);
  builder.usage = usageOf(message.usage);
  builder.finishReason = finishReasonOf(message.stop_reason);
  builder.finishMessage = explanationOf(message);
  return builder.build();
}

/**
 * The thinking blocks go back to Anthropic with the turn: before its first call (required there
 * with tool use), else with its text (Claude Opus 4.5 and later keep earlier turns' thinking in
 * context, and the prompt cache matches only if the blocks come back as they were).
 */
function attachThinking(builder: ResponseBuilder, thinking: ThinkingBlock[]): void {
  if (builder.hasCalls) builder.attachToFirstCall({ [THINKING_FIELD]: thinking });
  else builder.addText('', { [THINKING_FIELD]: thinking });
}

/** Why the model stopped, in Anthropic's words: `stop_details.explanation` of a refusal. */
function explanationOf(carrier: object): string | undefined {
  const details = (carrier as { stop_details?: unknown }).stop_details;
  return isRecord(details) && typeof details.explanation === 'string' ? details.explanation : undefined;
}

/** Folds the Messages API stream events into partial responses and the complete response. */
export class MessageStreamAccumulator {
  private builder = new ResponseBuilder();
  private calls = new ToolCallAssembler<number>();
  private thinking = new Map<number, ThinkingBlock>();
  private startUsage: Usage | undefined;
  /** Whether `message_stop` arrived; a stream without it was cut off. */
  finished = false;

  add(event: RawMessageStreamEvent): LlmResponse[] {
    switch (event.type) {
      case 'message_start':
        // A second message_start (a gateway splicing a retried generation into the stream) starts
        // the turn over: the final response holds only the last message, not both run together.
        this.builder = new ResponseBuilder();
        this.calls = new ToolCallAssembler<number>();
        this.thinking = new Map<number, ThinkingBlock>();
        this.startUsage = usageOf(event.message.usage);
        this.builder.usage = this.startUsage;
        return [];
      case 'content_block_start': {
        const block = event.content_block;
        if (block.type === 'tool_use') this.calls.add(event.index, { id: block.id, name: block.name });
        else if (block.type === 'thinking')
          this.thinking.set(event.index, {
            type: 'thinking',
            thinking: block.thinking,
            // Not every server sends the empty signature the block starts with (the SDK's type says it does).
            signature: typeof block.signature === 'string' ? block.signature : '',
          });
        else if (block.type === 'redacted_thinking')
          this.thinking.set(event.index, { type: 'redacted_thinking', data: block.data });
        else if (block.type === 'text' && block.text) return compact([this.builder.addText(block.text)]);
        return [];
      }
      case 'content_block_delta':
        return this.addDelta(event);
      case 'message_delta': {
        const builder = this.builder;
        builder.finishReason = finishReasonOf(event.delta.stop_reason);
        builder.finishMessage = explanationOf(event.delta) ?? builder.finishMessage;
        // message_delta usage is cumulative; input counts may be absent there.
        const delta = usageOf(event.usage);
        const start = this.startUsage;
        builder.usage = {
          ...delta,
          inputTokens:
            event.usage.input_tokens === null || event.usage.input_tokens === undefined
              ? (start?.inputTokens ?? 0)
              : delta.inputTokens,
          ...(delta.cachedTokens === undefined && start?.cachedTokens !== undefined
            ? { cachedTokens: start.cachedTokens }
            : {}),
        };
        return [];
      }
      case 'message_stop':
        this.finished = true;
        return [];
      case 'content_block_stop':
        return [];
      default:
        return [];
    }
  }

  private addDelta(event: RawContentBlockDeltaEvent): LlmResponse[] {
    const delta = event.delta;
    switch (delta.type) {
      case 'text_delta':
        return compact([this.builder.addText(delta.text)]);
      case 'input_json_delta':
        // Only a tool_use block is a call; a server tool's input (server_tool_use) streams the same way.
        if (this.calls.has(event.index)) this.calls.add(event.index, { args: delta.partial_json });
        return [];
      case 'thinking_delta': {
        const block = this.thinking.get(event.index);
        if (block?.type === 'thinking') block.thinking += delta.thinking;
        return compact([this.builder.addThought(delta.thinking)]);
      }
      case 'signature_delta': {
        const block = this.thinking.get(event.index);
        if (block?.type === 'thinking') block.signature += delta.signature;
        return [];
      }
      case 'citations_delta':
        return [];
    }
  }

  final(): LlmResponse {
    this.calls.flushInto(this.builder);
    if (this.thinking.size > 0) attachThinking(this.builder, [...this.thinking.values()]);
    return this.builder.build();
  }
}

function compact(responses: (LlmResponse | undefined)[]): LlmResponse[] {
  return responses.filter((r): r is LlmResponse => r !== undefined);
}

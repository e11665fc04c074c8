import type { LlmResponse, Usage } from '@troupe/core';
import type {
  Response,
  ResponseOutputItem,
  ResponseOutputText,
  ResponseReasoningItem,
  ResponseUsage,
} from 'openai/resources/responses/responses';
import { ResponseBuilder } from '../../shared/response-builder.js';
import { finishReasonOf, usageOf } from '../response.js';
import { expandParallelWrapper } from './parallel-wrapper.js';
import { keptReasoning, REASONING_FIELD } from './reasoning.js';

type Annotation = ResponseOutputText['annotations'][number];

/** Where a text part keeps the citations of its answer (web search results, file search hits). */
export const ANNOTATIONS_FIELD = 'openaiAnnotations';

/** Responses usage in Troupe's terms: cached tokens are part of the input, reasoning tokens part of the output. */
export function responsesUsageOf(usage: ResponseUsage | null | undefined): Usage | undefined {
  if (!usage) return undefined;
  return usageOf({
    prompt_tokens: usage.input_tokens,
    completion_tokens: usage.output_tokens,
    total_tokens: usage.total_tokens,
    prompt_tokens_details: { cached_tokens: usage.input_tokens_details?.cached_tokens ?? 0 },
    completion_tokens_details: { reasoning_tokens: usage.output_tokens_details?.reasoning_tokens ?? 0 },
  });
}

/** Why the turn ended, in the Chat Completions words `finishReasonOf` maps. */
function chatReasonOf(response: Pick<Response, 'status' | 'incomplete_details'>): string | undefined {
  if (response.status === 'completed') return 'stop';
  if (response.status !== 'incomplete') return undefined;
  switch (response.incomplete_details?.reason) {
    case 'max_output_tokens':
      return 'length';
    case 'content_filter':
      return 'content_filter';
    default:
      return 'other';
  }
}

/** What a failed response says went wrong (`response.error`), in one line. */
export function failureOf(response: Pick<Response, 'error'>): { message: string; code: string | undefined } {
  const error = response.error;
  return {
    message: error?.message || 'the response failed without a message',
    code: typeof error?.code === 'string' ? error.code : undefined,
  };
}

/**
 * The Troupe response for a finished Responses API response: reasoning summaries as thought
 * text, answer text (refusals as chat's: text, finish reason SAFETY), function calls, generated
 * images; the reasoning items themselves ride on the turn's first part for the next request.
 */
export function fromResponse(response: Response, model: string): LlmResponse {
  const builder = new ResponseBuilder();
  const reasoning: ResponseReasoningItem[] = [];
  const annotations: Annotation[] = [];
  let thoughts = 0;
  let text = false;
  for (const item of response.output as readonly ResponseOutputItem[]) {
    switch (item.type) {
      case 'reasoning': {
        reasoning.push(item);
        for (const piece of reasoningTexts(item)) builder.addThought((thoughts++ > 0 ? '\n\n' : '') + piece);
        break;
      }
      case 'message':
        for (const content of item.content) {
          if (content.type === 'output_text') {
            builder.addText(content.text);
            text ||= content.text !== '';
            annotations.push(...content.annotations);
          } else {
            builder.addText(content.refusal);
            text ||= content.refusal !== '';
            builder.finishMessage = (builder.finishMessage ?? '') + content.refusal;
          }
        }
        break;
      case 'function_call':
        for (const call of expandParallelWrapper(item)) builder.addCall(call);
        break;
      case 'image_generation_call':
        if (item.result) builder.addPart({ inlineData: { mimeType: 'image/png', data: item.result } });
        break;
      default:
        // Built-in tools' own items (web_search_call, file_search_call, code_interpreter_call,
        // mcp_call, ...) ran at OpenAI; what they found reaches the turn as the answer's text and
        // its annotations.
        break;
    }
  }
  if (annotations.length > 0) builder.addText('', { [ANNOTATIONS_FIELD]: annotations.map(plainAnnotation) });
  const carried = keptReasoning(model, reasoning);
  if (carried) {
    if (text) builder.addText('', { [REASONING_FIELD]: carried });
    else builder.attachToFirstCall({ [REASONING_FIELD]: carried });
  }
  builder.usage = responsesUsageOf(response.usage);
  builder.finishReason = builder.finishMessage ? 'SAFETY' : finishReasonOf(chatReasonOf(response));
  return builder.build();
}

/** A reasoning item's readable text: its summaries, else its raw reasoning (open-weight models on compatible servers). */
export function reasoningTexts(item: ResponseReasoningItem): string[] {
  const summaries = item.summary.map((s) => s.text).filter((t) => t !== '');
  if (summaries.length > 0) return summaries;
  return (item.content ?? []).map((c) => c.text).filter((t) => t !== '');
}

/** An annotation without the SDK's optional clutter: what it cites and where in the text. */
function plainAnnotation(annotation: Annotation): Record<string, unknown> {
  return Object.fromEntries(Object.entries(annotation).filter(([, value]) => value !== undefined && value !== null));
}

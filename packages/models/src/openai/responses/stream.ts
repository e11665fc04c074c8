import type { LlmResponse } from '@troupe/core';
import type { Response, ResponseOutputItem, ResponseStreamEvent } from 'openai/resources/responses/responses';
import type { StreamAccumulator } from '../../shared/provider-llm.js';
import { ResponseBuilder } from '../../shared/response-builder.js';
import { failureOf, fromResponse } from './response.js';

/** A stream event that says the response failed (`error`, `response.failed`). */
export class ResponseFailedError extends Error {
  constructor(
    message: string,
    /** OpenAI's error code, e.g. `server_error`, `rate_limit_exceeded`, `insufficient_quota`. */
    readonly code: string | undefined,
  ) {
    super(code ? `${message} (${code})` : message);
    this.name = 'ResponseFailedError';
  }
}

/** Codes of failures that another attempt may not meet. */
const TRANSIENT_CODES = new Set(['server_error', 'rate_limit_exceeded', 'server_is_overloaded', 'slow_down']);

export function isTransient(code: string | undefined): boolean {
  return code !== undefined && TRANSIENT_CODES.has(code);
}

/** The stream's events, with a failure event turned into a thrown {@link ResponseFailedError}. */
export async function* failingOnError(events: AsyncIterable<ResponseStreamEvent>): AsyncGenerator<ResponseStreamEvent> {
  for await (const event of events) {
    if (event.type === 'error') throw new ResponseFailedError(event.message, event.code ?? undefined);
    if (event.type === 'response.failed') {
      const { message, code } = failureOf(event.response);
      throw new ResponseFailedError(message, code);
    }
    yield event;
  }
}

/**
 * Folds Responses API stream events: text, refusal and reasoning deltas become partial
 * responses as they come; the final response is built from the finished response
 * (`response.completed` / `response.incomplete`), or, when a server leaves its `output` empty,
 * from the items the stream delivered, function call arguments assembled from their deltas.
 */
export class ResponsesStreamAccumulator implements StreamAccumulator<ResponseStreamEvent> {
  private readonly partials = new ResponseBuilder();
  private readonly items = new Map<number, ResponseOutputItem>();
  private finishedResponse: Response | undefined;
  private readonly summaryParts = new Set<string>();

  constructor(private readonly model: string) {}

  get finished(): boolean {
    return this.finishedResponse !== undefined;
  }

  add(event: ResponseStreamEvent): LlmResponse[] {
    switch (event.type) {
      case 'response.output_text.delta':
        return compact(this.partials.addText(event.delta));
      case 'response.refusal.delta':
        return compact(this.partials.addText(event.delta));
      case 'response.reasoning_summary_part.added': {
        // Summary parts are paragraphs; the final thought joins them the same way.
        const first = this.summaryParts.size === 0;
        this.summaryParts.add(`${event.item_id}:${event.summary_index}`);
        return first ? [] : compact(this.partials.addThought('\n\n'));
      }
      case 'response.reasoning_summary_text.delta':
        return compact(this.partials.addThought(event.delta));
      case 'response.reasoning_text.delta':
        return this.summaryParts.size === 0 ? compact(this.partials.addThought(event.delta)) : [];
      case 'response.output_item.added':
      case 'response.output_item.done':
        this.items.set(event.output_index, structuredClone(event.item));
        return [];
      case 'response.function_call_arguments.delta': {
        const item = this.items.get(event.output_index);
        if (item?.type === 'function_call') item.arguments += event.delta;
        return [];
      }
      case 'response.completed':
      case 'response.incomplete':
        this.finishedResponse = event.response;
        return [];
      default:
        return [];
    }
  }

  final(): LlmResponse {
    const response = this.finishedResponse;
    if (!response) throw new Error('ResponsesStreamAccumulator.final() before the response finished.');
    const streamed = [...this.items.entries()].sort(([a], [b]) => a - b).map(([, item]) => item);
    const output = response.output.length > 0 ? response.output : streamed;
    return fromResponse({ ...response, output }, this.model);
  }
}

function compact(response: LlmResponse | undefined): LlmResponse[] {
  return response ? [response] : [];
}

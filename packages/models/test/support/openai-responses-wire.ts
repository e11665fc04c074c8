import type { Usage } from '@troupe/core';
import { json, pieces, sse, type RecordedRequest, type Reply } from './fake-server.js';
import type { ScriptedCall, SentResult } from './kit.js';

/** OpenAI's Responses API wire protocol (`POST /responses`): a response object, or its stream of typed events. */

const MODEL = 'gpt-test';

export type OutputItem = Record<string, unknown> & { type: string };

/** How a scripted response ends. */
export interface Ending {
  usage?: Usage | undefined;
  status?: 'completed' | 'incomplete' | 'failed';
  incomplete?: 'max_output_tokens' | 'content_filter';
  error?: { code: string; message: string };
}

function usageBody(usage: Usage | undefined): Record<string, unknown> {
  const u = usage ?? { inputTokens: 1, outputTokens: 1 };
  return {
    input_tokens: u.inputTokens,
    input_tokens_details: { cached_tokens: u.cachedTokens ?? 0 },
    output_tokens: u.outputTokens,
    output_tokens_details: { reasoning_tokens: u.thoughtTokens ?? 0 },
    total_tokens: u.inputTokens + u.outputTokens,
  };
}

/** A response object as `POST /responses` returns it (and `response.completed` carries it). */
export function responseBody(output: readonly OutputItem[], ending: Ending = {}): Record<string, unknown> {
  const status = ending.status ?? (ending.incomplete ? 'incomplete' : 'completed');
  return {
    id: 'resp_test',
    object: 'response',
    created_at: 1_700_000_000,
    status,
    error: ending.error ?? null,
    incomplete_details: ending.incomplete ? { reason: ending.incomplete } : null,
    model: MODEL,
    output,
    parallel_tool_calls: true,
    store: false,
    tools: [],
    usage: status === 'failed' ? null : usageBody(ending.usage),
  };
}

export function message(text: string, annotations: unknown[] = []): OutputItem {
  return {
    type: 'message',
    id: 'msg_1',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text, annotations }],
  };
}

export function refusalMessage(refusal: string): OutputItem {
  return {
    type: 'message',
    id: 'msg_1',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'refusal', refusal }],
  };
}

export function reasoning(summary: readonly string[], encrypted?: string, id = 'rs_1'): OutputItem {
  return {
    type: 'reasoning',
    id,
    summary: summary.map((text) => ({ type: 'summary_text', text })),
    ...(encrypted === undefined ? {} : { encrypted_content: encrypted }),
  };
}

export function functionCall(call: ScriptedCall, index = 0): OutputItem {
  return {
    type: 'function_call',
    id: `fc_${index}`,
    call_id: call.id,
    name: call.name,
    arguments: call.json,
    status: 'completed',
  };
}

function frame(event: Record<string, unknown> & { type: string }, sequence: number): string {
  return `event: ${event.type}\ndata: ${JSON.stringify({ ...event, sequence_number: sequence })}`;
}

/** The events of one output item: added, its deltas, done. */
function itemEvents(item: OutputItem, index: number): (Record<string, unknown> & { type: string })[] {
  const id = String(item.id);
  const events: (Record<string, unknown> & { type: string })[] = [];
  if (item.type === 'reasoning') {
    const summary = item.summary as { text: string }[];
    events.push({
      type: 'response.output_item.added',
      output_index: index,
      item: { id, type: 'reasoning', summary: [] },
    });
    summary.forEach(({ text }, s) => {
      const at = { item_id: id, output_index: index, summary_index: s };
      events.push({ type: 'response.reasoning_summary_part.added', ...at, part: { type: 'summary_text', text: '' } });
      for (const delta of pieces(text, 2)) events.push({ type: 'response.reasoning_summary_text.delta', ...at, delta });
      events.push({ type: 'response.reasoning_summary_text.done', ...at, text });
      events.push({ type: 'response.reasoning_summary_part.done', ...at, part: { type: 'summary_text', text } });
    });
  } else if (item.type === 'message') {
    events.push({
      type: 'response.output_item.added',
      output_index: index,
      item: { ...item, status: 'in_progress', content: [] },
    });
    (item.content as Record<string, unknown>[]).forEach((part, c) => {
      const at = { item_id: id, output_index: index, content_index: c };
      const refusal = part.type === 'refusal';
      const full = String(refusal ? part.refusal : part.text);
      events.push({
        type: 'response.content_part.added',
        ...at,
        part: { ...part, [refusal ? 'refusal' : 'text']: '' },
      });
      for (const delta of pieces(full, 3))
        events.push({ type: refusal ? 'response.refusal.delta' : 'response.output_text.delta', ...at, delta });
      events.push(
        refusal
          ? { type: 'response.refusal.done', ...at, refusal: full }
          : { type: 'response.output_text.done', ...at, text: full },
      );
      events.push({ type: 'response.content_part.done', ...at, part });
    });
  } else if (item.type === 'function_call') {
    events.push({
      type: 'response.output_item.added',
      output_index: index,
      item: { ...item, arguments: '', status: 'in_progress' },
    });
    for (const delta of pieces(String(item.arguments), 3))
      events.push({ type: 'response.function_call_arguments.delta', item_id: id, output_index: index, delta });
    events.push({
      type: 'response.function_call_arguments.done',
      item_id: id,
      output_index: index,
      arguments: item.arguments,
    });
  } else {
    events.push({ type: 'response.output_item.added', output_index: index, item });
  }
  events.push({ type: 'response.output_item.done', output_index: index, item });
  return events;
}

/** The whole stream of a response: created, every item's events, then completed / incomplete / failed. */
export function streamFrames(output: readonly OutputItem[], ending: Ending = {}): string[] {
  const final = responseBody(output, ending);
  const events: (Record<string, unknown> & { type: string })[] = [
    { type: 'response.created', response: { ...final, status: 'in_progress', output: [], usage: null } },
    { type: 'response.in_progress', response: { ...final, status: 'in_progress', output: [], usage: null } },
  ];
  output.forEach((item, index) => events.push(...itemEvents(item, index)));
  const status = final.status as string;
  events.push({ type: `response.${status === 'completed' ? 'completed' : status}`, response: final });
  return events.map((event, sequence) => frame(event, sequence));
}

/** A response with these output items, as JSON or as a stream, whichever the request asked for. */
export function respond(output: readonly OutputItem[], ending: Ending = {}): Reply {
  return (res, req) =>
    isStreaming(req) ? sse(streamFrames(output, ending))(res, req) : json(200, responseBody(output, ending))(res, req);
}

export function isStreaming(req: RecordedRequest): boolean {
  return req.body.stream === true;
}

export function text(answer: string, options: { usage?: Usage; thought?: string } = {}): Reply {
  return respond([...(options.thought ? [reasoning([options.thought])] : []), message(answer)], options);
}

export function toolCalls(calls: readonly ScriptedCall[], options: { usage?: Usage } = {}): Reply {
  return respond(
    calls.map((call, index) => functionCall(call, index)),
    options,
  );
}

export function malformedCall(name: string, raw: string): Reply {
  return toolCalls([{ id: 'call_broken', name, json: raw }]);
}

export function error(status: number, message: string, headers: Record<string, string> = {}): Reply {
  return json(
    status,
    {
      error: {
        message,
        type: status === 429 ? 'rate_limit_exceeded' : 'invalid_request_error',
        param: null,
        code: null,
      },
    },
    headers,
  );
}

/** A stream that sends these text deltas, then the connection drops. */
export function cut(chunks: readonly string[]): Reply {
  const start = streamFrames([]).slice(0, 2);
  const item = { type: 'message', id: 'msg_1', role: 'assistant', status: 'in_progress', content: [] };
  const events = [
    { type: 'response.output_item.added', output_index: 0, item },
    ...chunks.map((delta) => ({
      type: 'response.output_text.delta',
      item_id: 'msg_1',
      output_index: 0,
      content_index: 0,
      delta,
    })),
  ];
  return sse([...start, ...events.map((event, i) => frame(event, i + 2))], { cut: true });
}

export interface InputItem {
  type?: string;
  role?: string;
  content?: unknown;
  call_id?: string;
  name?: string;
  arguments?: string;
  output?: string;
  id?: string;
  encrypted_content?: string;
  summary?: unknown;
}

export function input(req: RecordedRequest): InputItem[] {
  return req.body.input as InputItem[];
}

export function system(req: RecordedRequest): string | undefined {
  return typeof req.body.instructions === 'string' ? req.body.instructions : undefined;
}

export function toolNames(req: RecordedRequest): string[] {
  return ((req.body.tools ?? []) as { type: string; name?: string }[])
    .filter((t) => t.type === 'function')
    .map((t) => String(t.name));
}

export function responseSchema(req: RecordedRequest): unknown {
  const text = req.body.text as { format?: { type: string; schema?: unknown } } | undefined;
  return text?.format?.type === 'json_schema' ? text.format.schema : undefined;
}

export function results(req: RecordedRequest): SentResult[] {
  const items = input(req);
  return items
    .filter((i) => i.type === 'function_call_output')
    .map((i) => ({
      id: i.call_id,
      name: items.find((c) => c.type === 'function_call' && c.call_id === i.call_id)?.name,
      response: JSON.parse(String(i.output)) as unknown,
    }));
}

export function calls(req: RecordedRequest): { id: string | undefined; name: string; args: unknown }[] {
  return input(req)
    .filter((i) => i.type === 'function_call')
    .map((i) => ({ id: i.call_id, name: String(i.name), args: JSON.parse(String(i.arguments)) as unknown }));
}

/** The text of the last user message in the request. */
export function lastUserText(req: RecordedRequest): string {
  const last = input(req)
    .filter((i) => i.role === 'user')
    .at(-1);
  if (typeof last?.content === 'string') return last.content;
  return Array.isArray(last?.content)
    ? (last.content as { type: string; text?: string }[])
        .filter((p) => p.type === 'input_text')
        .map((p) => p.text)
        .join('\n')
    : '';
}

import type { Usage } from '@troupe/core';
import { json, pieces, sse, type RecordedRequest, type Reply } from './fake-server.js';
import type { ScriptedCall, SentResult } from './kit.js';

/** The Anthropic Messages API wire protocol (`POST /v1/messages`, JSON or named SSE events). */

const MODEL = 'claude-test';

function usageBody(usage: Usage | undefined): Record<string, unknown> {
  if (!usage) return { input_tokens: 1, output_tokens: 1, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
  const cached = usage.cachedTokens ?? 0;
  const written = usage.cacheWriteTokens ?? 0;
  return {
    // Anthropic counts cache reads and writes apart from input_tokens.
    input_tokens: usage.inputTokens - cached - written,
    cache_read_input_tokens: cached,
    cache_creation_input_tokens: written,
    output_tokens: usage.outputTokens,
    ...(usage.thoughtTokens === undefined ? {} : { output_tokens_details: { thinking_tokens: usage.thoughtTokens } }),
  };
}

function message(content: unknown[], stopReason: string, usage?: Usage): Record<string, unknown> {
  return {
    id: 'msg_1',
    type: 'message',
    role: 'assistant',
    model: MODEL,
    content,
    stop_reason: stopReason,
    stop_sequence: null,
    usage: usageBody(usage),
  };
}

const event = (type: string, data: Record<string, unknown>): string =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}`;

/** A whole stream: message_start, the given block events, message_delta with the stop reason and usage, message_stop. */
function stream(blocks: string[], stopReason: string, usage?: Usage): string[] {
  const full = usageBody(usage);
  const start = { ...full, output_tokens: 1 };
  delete (start as { output_tokens_details?: unknown }).output_tokens_details;
  const deltaUsage: Record<string, unknown> = { output_tokens: full.output_tokens };
  if (full.output_tokens_details) deltaUsage.output_tokens_details = full.output_tokens_details;
  return [
    event('message_start', {
      message: {
        id: 'msg_1',
        type: 'message',
        role: 'assistant',
        model: MODEL,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: start,
      },
    }),
    event('ping', {}),
    ...blocks,
    event('message_delta', { delta: { stop_reason: stopReason, stop_sequence: null }, usage: deltaUsage }),
    event('message_stop', {}),
  ];
}

function textBlock(index: number, text: string): string[] {
  return [
    event('content_block_start', { index, content_block: { type: 'text', text: '' } }),
    ...pieces(text, 3).map((piece) =>
      event('content_block_delta', { index, delta: { type: 'text_delta', text: piece } }),
    ),
    event('content_block_stop', { index }),
  ];
}

function thinkingBlock(index: number, thinking: string, signature: string): string[] {
  return [
    event('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } }),
    ...pieces(thinking, 2).map((piece) =>
      event('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: piece } }),
    ),
    event('content_block_delta', { index, delta: { type: 'signature_delta', signature } }),
    event('content_block_stop', { index }),
  ];
}

function toolBlock(index: number, call: ScriptedCall): string[] {
  return [
    event('content_block_start', {
      index,
      content_block: { type: 'tool_use', id: call.id, name: call.name, input: {} },
    }),
    ...pieces(call.json, 3).map((piece) =>
      event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } }),
    ),
    event('content_block_stop', { index }),
  ];
}

export function isStreaming(req: RecordedRequest): boolean {
  return req.body.stream === true;
}

export function text(answer: string, options: { usage?: Usage; thought?: string; signature?: string } = {}): Reply {
  const signature = options.signature ?? 'sig-abc';
  return (res, req) => {
    if (!isStreaming(req)) {
      const content = [
        ...(options.thought ? [{ type: 'thinking', thinking: options.thought, signature }] : []),
        { type: 'text', text: answer, citations: null },
      ];
      return json(200, message(content, 'end_turn', options.usage))(res, req);
    }
    const blocks = options.thought
      ? [...thinkingBlock(0, options.thought, signature), ...textBlock(1, answer)]
      : textBlock(0, answer);
    return sse(stream(blocks, 'end_turn', options.usage))(res, req);
  };
}

export function toolCalls(
  calls: readonly ScriptedCall[],
  options: { usage?: Usage; thought?: string; signature?: string } = {},
): Reply {
  return (res, req) => {
    const thinking = options.thought ? 1 : 0;
    if (!isStreaming(req)) {
      const content = [
        ...(options.thought
          ? [{ type: 'thinking', thinking: options.thought, signature: options.signature ?? 'sig-abc' }]
          : []),
        ...calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.name, input: JSON.parse(c.json) as unknown })),
      ];
      return json(200, message(content, 'tool_use', options.usage))(res, req);
    }
    const blocks = [
      ...(options.thought ? thinkingBlock(0, options.thought, options.signature ?? 'sig-abc') : []),
      ...calls.flatMap((c, i) => toolBlock(i + thinking, c)),
    ];
    return sse(stream(blocks, 'tool_use', options.usage))(res, req);
  };
}

/** Broken JSON can only come as input_json_delta fragments, so this always streams. */
export function malformedCall(name: string, raw: string): Reply {
  return sse(stream(toolBlock(0, { id: 'toolu_broken', name, json: raw }), 'tool_use'));
}

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  429: 'rate_limit_error',
  500: 'api_error',
  503: 'api_error',
  529: 'overloaded_error',
};

export function error(status: number, messageText: string, headers: Record<string, string> = {}): Reply {
  return json(
    status,
    { type: 'error', error: { type: ERROR_TYPES[status] ?? 'api_error', message: messageText }, request_id: 'req_1' },
    headers,
  );
}

export function cut(chunks: readonly string[]): Reply {
  const full = stream(
    [
      event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
      ...chunks.map((c) => event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: c } })),
    ],
    'end_turn',
  );
  // message_start, ping and the text; the stop events never come.
  return sse(full.slice(0, -2), { cut: true });
}

interface Block {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: string;
  is_error?: boolean;
  thinking?: string;
  signature?: string;
}

interface Message {
  role: string;
  content: string | Block[];
}

export function messages(req: RecordedRequest): Message[] {
  return req.body.messages as Message[];
}

function blocks(req: RecordedRequest): Block[] {
  return messages(req).flatMap((m) => (typeof m.content === 'string' ? [] : m.content));
}

export function system(req: RecordedRequest): string | undefined {
  return typeof req.body.system === 'string' ? req.body.system : undefined;
}

export function toolNames(req: RecordedRequest): string[] {
  return ((req.body.tools ?? []) as { name: string }[]).map((t) => t.name);
}

export function responseSchema(req: RecordedRequest): unknown {
  return (req.body.output_config as { format?: { schema?: unknown } } | undefined)?.format?.schema;
}

export function results(req: RecordedRequest): SentResult[] {
  const all = blocks(req);
  return all
    .filter((b) => b.type === 'tool_result')
    .map((b) => ({
      id: b.tool_use_id,
      name: all.find((u) => u.type === 'tool_use' && u.id === b.tool_use_id)?.name,
      response: JSON.parse(b.content ?? '{}') as unknown,
    }));
}

export function calls(req: RecordedRequest): { id: string | undefined; name: string; args: unknown }[] {
  return blocks(req)
    .filter((b) => b.type === 'tool_use')
    .map((b) => ({ id: b.id, name: b.name ?? '', args: b.input }));
}

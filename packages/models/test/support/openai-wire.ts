import type { Usage } from '@troupe/core';
import { json, pieces, sse, type RecordedRequest, type Reply } from './fake-server.js';
import type { ScriptedCall, SentResult } from './kit.js';

/** The OpenAI Chat Completions wire protocol (also spoken by Ollama, vLLM and the AI SDK's openai-compatible provider). */

const MODEL = 'gpt-test';

function usageBody(usage: Usage | undefined): Record<string, unknown> | undefined {
  if (!usage) return undefined;
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedTokens ?? 0 },
    completion_tokens_details: { reasoning_tokens: usage.thoughtTokens ?? 0 },
  };
}

function completion(message: Record<string, unknown>, finish: string, usage?: Usage): Record<string, unknown> {
  return {
    id: 'chatcmpl-1',
    object: 'chat.completion',
    created: 1_700_000_000,
    model: MODEL,
    choices: [
      { index: 0, message: { role: 'assistant', refusal: null, ...message }, finish_reason: finish, logprobs: null },
    ],
    usage: usageBody(usage) ?? { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
  };
}

function chunk(delta: Record<string, unknown>, finish: string | null = null): string {
  return `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1_700_000_000, model: MODEL, choices: [{ index: 0, delta, finish_reason: finish }] })}`;
}

function usageChunk(usage: Usage | undefined): string {
  return `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1_700_000_000, model: MODEL, choices: [], usage: usageBody(usage) ?? { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 } })}`;
}

export function isStreaming(req: RecordedRequest): boolean {
  return req.body.stream === true;
}

export function text(answer: string, options: { usage?: Usage; thought?: string } = {}): Reply {
  return (res, req) => {
    if (!isStreaming(req)) {
      return json(
        200,
        completion(
          { content: answer, ...(options.thought ? { reasoning_content: options.thought } : {}) },
          'stop',
          options.usage,
        ),
      )(res, req);
    }
    const frames = [chunk({ role: 'assistant', content: '' })];
    if (options.thought)
      for (const piece of pieces(options.thought, 2)) frames.push(chunk({ reasoning_content: piece }));
    for (const piece of pieces(answer, 3)) frames.push(chunk({ content: piece }));
    frames.push(chunk({}, 'stop'), usageChunk(options.usage), 'data: [DONE]');
    return sse(frames)(res, req);
  };
}

export function toolCalls(calls: readonly ScriptedCall[], options: { usage?: Usage } = {}): Reply {
  return (res, req) => {
    if (!isStreaming(req)) {
      const toolCallsBody = calls.map((c) => ({
        id: c.id,
        type: 'function',
        function: { name: c.name, arguments: c.json },
      }));
      return json(200, completion({ content: null, tool_calls: toolCallsBody }, 'tool_calls', options.usage))(res, req);
    }
    const frames = [chunk({ role: 'assistant', content: null })];
    calls.forEach((c, index) => {
      frames.push(
        chunk({ tool_calls: [{ index, id: c.id, type: 'function', function: { name: c.name, arguments: '' } }] }),
      );
      for (const piece of pieces(c.json, 3))
        frames.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
    });
    frames.push(chunk({}, 'tool_calls'), usageChunk(options.usage), 'data: [DONE]');
    return sse(frames)(res, req);
  };
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

export function cut(chunks: readonly string[]): Reply {
  return sse([chunk({ role: 'assistant', content: '' }), ...chunks.map((c) => chunk({ content: c }))], { cut: true });
}

interface ChatMessage {
  role: string;
  content?: unknown;
  tool_call_id?: string;
  tool_calls?: { id: string; function: { name: string; arguments: string } }[];
}

export function messages(req: RecordedRequest): ChatMessage[] {
  return req.body.messages as ChatMessage[];
}

export function system(req: RecordedRequest): string | undefined {
  const first = messages(req)[0];
  return first?.role === 'system' && typeof first.content === 'string' ? first.content : undefined;
}

export function toolNames(req: RecordedRequest): string[] {
  return ((req.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
}

export function responseSchema(req: RecordedRequest): unknown {
  const format = req.body.response_format as { type: string; json_schema?: { schema: unknown } } | undefined;
  return format?.type === 'json_schema' ? format.json_schema?.schema : undefined;
}

export function results(req: RecordedRequest): SentResult[] {
  return messages(req)
    .filter((m) => m.role === 'tool')
    .map((m) => {
      const call = messages(req)
        .flatMap((x) => x.tool_calls ?? [])
        .find((c) => c.id === m.tool_call_id);
      return { id: m.tool_call_id, name: call?.function.name, response: JSON.parse(String(m.content)) as unknown };
    });
}

export function calls(req: RecordedRequest): { id: string | undefined; name: string; args: unknown }[] {
  return messages(req)
    .flatMap((m) => m.tool_calls ?? [])
    .map((c) => ({ id: c.id, name: c.function.name, args: JSON.parse(c.function.arguments) as unknown }));
}

import type { Usage } from '@troupe/core';
import { json, pieces, sse, type RecordedRequest, type Reply } from './fake-server.js';
import type { ScriptedCall, SentResult } from './kit.js';

/** The Gemini API wire protocol (`generateContent` and `streamGenerateContent?alt=sse`). */

const MODEL_VERSION = 'gemini-2.5-flash-001';

function usageBody(usage: Usage | undefined): Record<string, unknown> {
  if (!usage) return { promptTokenCount: 1, candidatesTokenCount: 1, totalTokenCount: 2 };
  const thoughts = usage.thoughtTokens ?? 0;
  return {
    promptTokenCount: usage.inputTokens,
    // Gemini counts the answer apart from the thinking.
    candidatesTokenCount: usage.outputTokens - thoughts,
    ...(usage.thoughtTokens === undefined ? {} : { thoughtsTokenCount: thoughts }),
    ...(usage.cachedTokens === undefined ? {} : { cachedContentTokenCount: usage.cachedTokens }),
    totalTokenCount: usage.inputTokens + usage.outputTokens,
  };
}

function response(
  parts: unknown[],
  extra: { finishReason?: string; finishMessage?: string; usage?: Usage | null } = {},
): Record<string, unknown> {
  const candidate: Record<string, unknown> = { content: { role: 'model', parts }, index: 0 };
  if (extra.finishReason) candidate.finishReason = extra.finishReason;
  if (extra.finishMessage) candidate.finishMessage = extra.finishMessage;
  return {
    candidates: [candidate],
    ...(extra.usage === null ? {} : { usageMetadata: usageBody(extra.usage) }),
    modelVersion: MODEL_VERSION,
    responseId: 'resp-1',
  };
}

const frame = (body: unknown): string => `data: ${JSON.stringify(body)}`;

export function isStreaming(req: RecordedRequest): boolean {
  return req.path.includes(':streamGenerateContent');
}

export function text(answer: string, options: { usage?: Usage; thought?: string } = {}): Reply {
  return (res, req) => {
    if (!isStreaming(req)) {
      const parts = [...(options.thought ? [{ text: options.thought, thought: true }] : []), { text: answer }];
      return json(200, response(parts, { finishReason: 'STOP', ...(options.usage ? { usage: options.usage } : {}) }))(
        res,
        req,
      );
    }
    const frames: string[] = [];
    if (options.thought)
      for (const piece of pieces(options.thought, 2))
        frames.push(frame(response([{ text: piece, thought: true }], { usage: null })));
    const answerPieces = pieces(answer, 3);
    answerPieces.forEach((piece, i) => {
      const last = i === answerPieces.length - 1;
      frames.push(
        frame(
          response(
            [{ text: piece }],
            last ? { finishReason: 'STOP', ...(options.usage ? { usage: options.usage } : {}) } : { usage: null },
          ),
        ),
      );
    });
    return sse(frames)(res, req);
  };
}

export function toolCalls(calls: readonly ScriptedCall[], options: { usage?: Usage } = {}): Reply {
  // Gemini sends each call whole (arguments as an object) and, before Gemini 3, without an id.
  const parts = calls.map((c) => ({ functionCall: { name: c.name, args: JSON.parse(c.json) as unknown } }));
  return (res, req) => {
    if (!isStreaming(req))
      return json(200, response(parts, { finishReason: 'STOP', ...(options.usage ? { usage: options.usage } : {}) }))(
        res,
        req,
      );
    const frames = parts.map((part, i) =>
      frame(
        response(
          [part],
          i === parts.length - 1
            ? { finishReason: 'STOP', ...(options.usage ? { usage: options.usage } : {}) }
            : { usage: null },
        ),
      ),
    );
    return sse(frames)(res, req);
  };
}

/** Gemini's own signal for a call it could not form: no parts, finishReason MALFORMED_FUNCTION_CALL. */
export function malformedCall(name: string, raw: string): Reply {
  const body = response([], {
    finishReason: 'MALFORMED_FUNCTION_CALL',
    finishMessage: `Malformed function call: print(default_api.${name}(${raw}))`,
  });
  return (res, req) => (isStreaming(req) ? sse([frame(body)])(res, req) : json(200, body)(res, req));
}

const STATUS_NAMES: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
};

export function error(
  status: number,
  message: string,
  headers: Record<string, string> = {},
  details: unknown[] = [],
): Reply {
  return json(
    status,
    {
      error: {
        code: status,
        message,
        status: STATUS_NAMES[status] ?? 'UNKNOWN',
        ...(details.length ? { details } : {}),
      },
    },
    headers,
  );
}

export function cut(chunks: readonly string[]): Reply {
  return sse(
    chunks.map((c) => frame(response([{ text: c }], { usage: null }))),
    { cut: true },
  );
}

interface GeminiContent {
  role: string;
  parts: {
    text?: string;
    functionCall?: { id?: string; name: string; args: unknown };
    functionResponse?: { id?: string; name: string; response: unknown };
    thoughtSignature?: string;
  }[];
}

export function contents(req: RecordedRequest): GeminiContent[] {
  return req.body.contents as GeminiContent[];
}

export function system(req: RecordedRequest): string | undefined {
  const instruction = req.body.systemInstruction as GeminiContent | undefined;
  return instruction?.parts.map((p) => p.text ?? '').join('');
}

export function toolNames(req: RecordedRequest): string[] {
  const tools = (req.body.tools ?? []) as { functionDeclarations?: { name: string }[] }[];
  return tools.flatMap((t) => (t.functionDeclarations ?? []).map((d) => d.name));
}

export function generationConfig(req: RecordedRequest): Record<string, unknown> {
  return (req.body.generationConfig ?? {}) as Record<string, unknown>;
}

export function responseSchema(req: RecordedRequest): unknown {
  return generationConfig(req).responseJsonSchema;
}

export function results(req: RecordedRequest): SentResult[] {
  return contents(req).flatMap((c) =>
    c.parts.flatMap((p) =>
      p.functionResponse
        ? [{ id: p.functionResponse.id, name: p.functionResponse.name, response: p.functionResponse.response }]
        : [],
    ),
  );
}

export function calls(req: RecordedRequest): { id: string | undefined; name: string; args: unknown }[] {
  return contents(req).flatMap((c) =>
    c.parts.flatMap((p) =>
      p.functionCall ? [{ id: p.functionCall.id, name: p.functionCall.name, args: p.functionCall.args }] : [],
    ),
  );
}

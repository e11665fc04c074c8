/**
 * A model provider for the Echo API, an imaginary provider with a small JSON-over-HTTP protocol:
 * `POST <baseURL>/v1/reply` with `{ model, system, tools, messages, stream }`; the answer is
 * `{ text, calls, usage }`, or with `stream: true` NDJSON lines `{ type: 'delta', text }` then
 * `{ type: 'done', calls, usage }`; a failure is a non-2xx status with `{ error: { message } }`.
 *
 * Everything else (retries, abort, error messages with secrets masked, the API key from the
 * environment, stream bookkeeping) comes from ProviderLlm: this file is only the wire mapping.
 */
import { registerModel, type Content, type LlmRequest, type LlmResponse, type Usage } from '@troupe/core';
import {
  checkModelName,
  ProviderLlm,
  requireApiKey,
  ResponseBuilder,
  type ProviderIdentity,
  type ProviderLlmOptions,
  type StreamAccumulator,
} from '@troupe/models';

/** Options of {@link EchoLlm}. */
export interface EchoOptions extends ProviderLlmOptions {
  /** @default process.env.ECHO_API_KEY */
  apiKey?: string;
  /** @default process.env.ECHO_BASE_URL, else 'https://api.echo.invalid' */
  baseURL?: string;
}

/** A function call as the Echo API writes it. */
interface EchoCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
}

/** Token counts as the Echo API reports them. */
interface EchoUsage {
  input: number;
  output: number;
  cached?: number;
  thought?: number;
}

/** One line of a streamed answer. */
type EchoLine = { type: 'delta'; text: string } | { type: 'done'; calls?: EchoCall[]; usage?: EchoUsage };

/** An Echo model, e.g. `new EchoLlm('echo-1')`, or the string `'echo/echo-1'` once this module is imported. */
export class EchoLlm extends ProviderLlm {
  protected readonly identity: ProviderIdentity;
  private readonly options: EchoOptions;

  constructor(model: string, options: EchoOptions = {}) {
    super(checkModelName(model, 'echo', 'echo-1'), options.retry);
    this.options = options;
    this.identity = {
      provider: 'echo',
      label: 'Echo',
      keyHint: 'ECHO_API_KEY or the apiKey option',
      secrets: [options.apiKey],
    };
  }

  protected async *generateOnce(
    request: LlmRequest,
    stream: boolean,
    abortSignal: AbortSignal | undefined,
  ): AsyncGenerator<LlmResponse> {
    const apiKey = requireApiKey(this.options.apiKey, ['ECHO_API_KEY'], 'Echo', 'echo');
    const url = `${this.options.baseURL ?? process.env.ECHO_BASE_URL ?? 'https://api.echo.invalid'}/v1/reply`;
    const body = JSON.stringify({ model: this.model, ...toEchoRequest(request), stream });
    const response = await this.send(abortSignal, () => post(url, apiKey, body, abortSignal));
    if (!stream) {
      const answer = await this.send(
        abortSignal,
        () => response.json() as Promise<{ text?: string; calls?: EchoCall[]; usage?: EchoUsage }>,
      );
      const accumulator = new EchoAccumulator();
      accumulator.add({ type: 'delta', text: answer.text ?? '' });
      accumulator.add({
        type: 'done',
        ...(answer.calls ? { calls: answer.calls } : {}),
        ...(answer.usage ? { usage: answer.usage } : {}),
      });
      yield accumulator.final();
      return;
    }
    const accumulator = new EchoAccumulator();
    yield* this.streamTurn(lines(response), accumulator, abortSignal, {
      unfinished: "the stream ended before its 'done' line",
    });
    yield accumulator.final();
  }
}

/** A non-2xx answer; ProviderLlm reads its `status` and message into a ModelError. */
class EchoHttpError extends Error {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
  }
}

async function post(url: string, apiKey: string, body: string, signal: AbortSignal | undefined): Promise<Response> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` },
    body,
    signal: signal ?? null,
  });
  if (response.ok) return response;
  const text = await response.text();
  let message = text;
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown } };
    if (typeof parsed.error?.message === 'string') message = parsed.error.message;
  } catch {
    // Not JSON: the body's text is the message.
  }
  throw new EchoHttpError(message, response.status);
}

function toEchoRequest(request: LlmRequest): Record<string, unknown> {
  const { config } = request;
  return {
    system: config.systemInstruction,
    tools: (config.tools ?? []).map((tool) => ({
      name: tool.name,
      description: tool.description,
      parameters: tool.parameters,
    })),
    messages: request.contents.map(toEchoMessage),
  };
}

function toEchoMessage(content: Content): Record<string, unknown> {
  return {
    role: content.role === 'model' ? 'model' : 'user',
    text: content.parts.map((part) => ('text' in part && !part.thought ? part.text : '')).join(''),
    calls: content.parts.flatMap((part) =>
      'functionCall' in part
        ? [{ id: part.functionCall.id, name: part.functionCall.name, arguments: part.functionCall.args }]
        : [],
    ),
    results: content.parts.flatMap((part) =>
      'functionResponse' in part ? [{ id: part.functionResponse.id, result: part.functionResponse.response }] : [],
    ),
  };
}

/** The NDJSON lines of a streamed answer. */
async function* lines(response: Response): AsyncGenerator<EchoLine> {
  if (!response.body) return;
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const chunk of response.body) {
    buffered += decoder.decode(chunk, { stream: true });
    let end: number;
    while ((end = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, end).trim();
      buffered = buffered.slice(end + 1);
      if (line !== '') yield JSON.parse(line) as EchoLine;
    }
  }
}

function usageOf(usage: EchoUsage): Usage {
  return {
    inputTokens: usage.input,
    outputTokens: usage.output,
    ...(usage.cached === undefined ? {} : { cachedTokens: usage.cached }),
    ...(usage.thought === undefined ? {} : { thoughtTokens: usage.thought }),
  };
}

/** Folds Echo lines into partial responses and the whole turn, with core's ResponseBuilder doing the bookkeeping. */
class EchoAccumulator implements StreamAccumulator<EchoLine> {
  private readonly builder = new ResponseBuilder();
  finished = false;

  add(line: EchoLine): LlmResponse[] {
    if (line.type === 'delta') {
      const partial = this.builder.addText(line.text);
      return partial ? [partial] : [];
    }
    for (const call of line.calls ?? []) this.builder.addCall({ id: call.id, name: call.name, args: call.arguments });
    if (line.usage) this.builder.usage = usageOf(line.usage);
    this.builder.finishReason = 'STOP';
    this.finished = true;
    return [];
  }

  final(): LlmResponse {
    return this.builder.build();
  }
}

registerModel('echo/', (model) => new EchoLlm(model));

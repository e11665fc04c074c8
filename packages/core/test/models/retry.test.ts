import {
  BaseLlm,
  ConfigurationError,
  LlmAgent,
  ModelError,
  withRetry,
  type LlmRequest,
  type LlmResponse,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { describe, expect, it } from 'vitest';
import { runOnce } from '../helpers.js';

const request: LlmRequest = { model: 'm', contents: [{ role: 'user', parts: [{ text: 'Hi' }] }], config: {} };
const FAST = { initialDelayMs: 1, jitter: false } as const;

async function collect(model: BaseLlm, stream = false, signal?: AbortSignal): Promise<LlmResponse[]> {
  const out: LlmResponse[] = [];
  for await (const response of model.generateContentAsync(request, stream, signal)) out.push(response);
  return out;
}

/** A model whose calls run the given steps in turn: throw an error, or yield responses. */
class StepModel extends BaseLlm {
  calls = 0;
  constructor(private readonly steps: (Error | LlmResponse[])[]) {
    super('step-model');
  }
  async *generateContentAsync(): AsyncGenerator<LlmResponse> {
    const step = this.steps[this.calls++];
    if (step === undefined) throw new Error(`unexpected call #${this.calls}`);
    if (step instanceof Error) throw step;
    yield* step;
  }
}

function httpError(status: number, headers?: Record<string, string>): ModelError {
  const cause = Object.assign(new Error(`HTTP ${status}`), { status, headers: new Headers(headers) });
  return new ModelError(`Provider failed with HTTP ${status}`, { status, provider: 'test', cause });
}

const answer = (text: string): LlmResponse[] => [{ content: { role: 'model', parts: [{ text }] }, turnComplete: true }];

describe('withRetry', () => {
  it('retries a 429 and returns the answer of the next attempt', async () => {
    const inner = new ScriptedModel([{ error: 'Rate limited', status: 429 }, 'Hello']);
    const responses = await collect(withRetry(inner, FAST));
    expect(responses.map((r) => r.content?.parts)).toEqual([[{ text: 'Hello' }]]);
    expect(inner.callCount).toBe(2);
  });

  it.each([400, 401, 403, 404])('never retries HTTP %i, even when retryOn says yes', async (status) => {
    const inner = new ScriptedModel([{ error: 'Client error', status }, 'never']);
    const error: unknown = await collect(withRetry(inner, { ...FAST, retryOn: () => true })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as ModelError).status).toBe(status);
    expect(inner.callCount).toBe(1);
  });

  it.each([500, 502, 503, 504, 529, 408, 409])('retries HTTP %i by default', async (status) => {
    const inner = new ScriptedModel([{ error: 'Server error', status }, 'ok']);
    await collect(withRetry(inner, FAST));
    expect(inner.callCount).toBe(2);
  });

  it('retries network errors found in the cause chain, and not other errors', async () => {
    const reset = new TypeError('fetch failed', { cause: Object.assign(new Error('socket'), { code: 'ECONNRESET' }) });
    const network = new StepModel([
      new ModelError('OpenAI request failed', { provider: 'openai', cause: reset }),
      answer('ok'),
    ]);
    await collect(withRetry(network, FAST));
    expect(network.calls).toBe(2);

    const bug = new StepModel([new Error('Cannot read properties of undefined'), answer('never')]);
    await expect(collect(withRetry(bug, FAST))).rejects.toThrow('Cannot read properties of undefined');
    expect(bug.calls).toBe(1);
  });

  it('honours an explicit retryable flag on the error', async () => {
    const flagged = new StepModel([
      Object.assign(new ModelError('stream ended early'), { retryable: true }),
      answer('ok'),
    ]);
    await collect(withRetry(flagged, FAST));
    expect(flagged.calls).toBe(2);
  });

  it('waits with exponential backoff', async () => {
    const inner = new ScriptedModel([{ error: 'busy', status: 503 }, { error: 'busy', status: 503 }, 'ok']);
    const started = performance.now();
    await collect(withRetry(inner, { initialDelayMs: 40, jitter: false }));
    expect(performance.now() - started).toBeGreaterThanOrEqual(40 + 80 - 5);
  });

  it.each([
    ['Retry-After seconds', () => httpError(429, { 'retry-after': '0.25' })],
    ['retry-after-ms', () => httpError(429, { 'retry-after-ms': '250' })],
    // An HTTP date has whole seconds: 1.25 s ahead is at least 250 ms ahead.
    ['an HTTP date', () => httpError(429, { 'retry-after': new Date(Date.now() + 1250).toUTCString() })],
    [
      'retryAfterMs on the error',
      () => Object.assign(new ModelError('slow down', { status: 429 }), { retryAfterMs: 250 }),
    ],
  ])('waits as long as %s says', async (_label, makeError) => {
    const inner = new StepModel([makeError(), answer('ok')]);
    const started = performance.now();
    await collect(withRetry(inner, { initialDelayMs: 1, maxDelayMs: 5000, jitter: true }));
    expect(performance.now() - started).toBeGreaterThanOrEqual(240);
    expect(inner.calls).toBe(2);
  });

  it('gives up at once when Retry-After asks for longer than maxDelayMs', async () => {
    const error = httpError(429, { 'retry-after': '120' });
    const inner = new StepModel([error, answer('never')]);
    await expect(collect(withRetry(inner, { ...FAST, maxDelayMs: 1000 }))).rejects.toBe(error);
    expect(inner.calls).toBe(1);
  });

  it('never retries once a response was yielded', async () => {
    const partial: LlmResponse = { content: { role: 'model', parts: [{ text: 'Hel' }] }, partial: true };
    const streaming = new (class extends BaseLlm {
      calls = 0;
      async *generateContentAsync(): AsyncGenerator<LlmResponse> {
        this.calls++;
        yield partial;
        throw httpError(503);
      }
    })('streaming');
    const seen: LlmResponse[] = [];
    const error: unknown = await (async () => {
      for await (const r of withRetry(streaming, FAST).generateContentAsync(request, true)) seen.push(r);
    })().catch((e: unknown) => e);
    expect((error as ModelError).status).toBe(503);
    expect(seen).toEqual([partial]);
    expect(streaming.calls).toBe(1);
  });

  it('throws the last ModelError when the attempts run out', async () => {
    const errors = [httpError(503), httpError(502), httpError(500)];
    const inner = new StepModel([...errors]);
    await expect(collect(withRetry(inner, { ...FAST, maxAttempts: 3 }))).rejects.toBe(errors[2]);
    expect(inner.calls).toBe(3);
  });

  it('wraps a last error that is not a ModelError in one', async () => {
    const inner = new StepModel([
      Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
      Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }),
    ]);
    const error: unknown = await collect(withRetry(inner, { ...FAST, maxAttempts: 2 })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ModelError);
    expect((error as Error).message).toBe("Model 'step-model' failed 2 times; the last error: socket hang up");
  });

  it('stops waiting as soon as the call is aborted', async () => {
    const inner = new ScriptedModel([{ error: 'busy', status: 503 }, 'never']);
    const controller = new AbortController();
    const reason = new Error('cancelled by the user');
    setTimeout(() => controller.abort(reason), 30);
    const started = performance.now();
    await expect(
      collect(withRetry(inner, { initialDelayMs: 10_000, maxDelayMs: 10_000 }), false, controller.signal),
    ).rejects.toBe(reason);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(inner.callCount).toBe(1);
  });

  it('retries only the listed statuses with retryOn: [...] and passes the attempt to a retryOn function', async () => {
    const listed = new ScriptedModel([{ error: 'rate', status: 429 }, 'never']);
    await expect(collect(withRetry(listed, { ...FAST, retryOn: [503] }))).rejects.toBeInstanceOf(ModelError);
    expect(listed.callCount).toBe(1);

    const attempts: number[] = [];
    const custom = new ScriptedModel([{ error: 'a', status: 418 }, { error: 'b', status: 418 }, 'ok']);
    await collect(
      withRetry(custom, {
        ...FAST,
        retryOn: (_error, attempt) => {
          attempts.push(attempt);
          return true;
        },
      }),
    );
    expect(attempts).toEqual([1, 2]);
  });

  it('rejects bad options naming the option, the value and the fix', () => {
    const inner = new ScriptedModel([]);
    expect(() => withRetry(inner, { maxAttempts: 0 })).toThrow(ConfigurationError);
    expect(() => withRetry(inner, { maxAttempts: 0 })).toThrow(
      'withRetry option maxAttempts is 0; use a whole number of at least 1 (1 turns retries off).',
    );
    expect(() => withRetry(inner, { initialDelayMs: -1 })).toThrow('withRetry option initialDelayMs is -1');
    expect(() => withRetry(inner, { initialDelayMs: 5000, maxDelayMs: 100 })).toThrow(
      'maxDelayMs (100) is less than initialDelayMs (5000)',
    );
    expect(() => withRetry(inner, { retryOn: [429, 401] })).toThrow(
      'retryOn lists 401; statuses 400, 401, 403 and 404 are never retried',
    );
  });

  it('keeps the model name, so events say which model answered', () => {
    expect(withRetry(new ScriptedModel([], { model: 'gpt-x' })).model).toBe('gpt-x');
  });

  it('ends a run with a typed error and a session that still works when the retries run out', async () => {
    const failing = withRetry(
      new ScriptedModel([
        { error: 'overloaded', status: 503 },
        { error: 'overloaded', status: 503 },
      ]),
      { ...FAST, maxAttempts: 2 },
    );
    const agent = new LlmAgent({ name: 'assistant', model: failing });
    const result = await runOnce(agent, 'Hello');
    expect(result.status).toBe('failed');
    expect(result.error).toBeInstanceOf(ModelError);
    expect((result.error as ModelError).status).toBe(503);
    expect(result.events[result.events.length - 1]).toMatchObject({ errorCode: 'MODEL', author: 'assistant' });
    const session = await result.runner.sessionService.getSession({
      appName: result.runner.appName,
      userId: 'u',
      sessionId: result.sessionId,
    });
    expect(session?.events.map((e) => e.errorCode ?? e.content?.parts)).toEqual([[{ text: 'Hello' }], 'MODEL']);
  });
});

/**
 * The contract every model adapter (a {@link BaseLlm} that calls a provider) passes, whatever its
 * wire protocol: a text answer, streaming (partial responses, then the whole turn once), function
 * calls with ids, usage, the provider's errors as {@link ModelError}s, the abort signal, and a
 * request's system instruction and tools reaching the provider. The fixture scripts what the
 * provider answers next (usually a local HTTP server speaking the provider's protocol) and, if it
 * can, says what the provider received.
 *
 * @example
 * // echo-llm.test.ts
 * import { modelAdapterContract } from '@troupe/core/testing/contracts';
 *
 * modelAdapterContract('EchoLlm', async () => {
 *   const server = await EchoServer.start();
 *   return {
 *     model: new EchoLlm('echo-1', { baseURL: server.url, retry: false }),
 *     reply: (turn) => server.next(turn),
 *     received: () => server.lastRequest(),
 *     close: () => server.close(),
 *   };
 * });
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ModelError,
  type BaseLlm,
  type FunctionCall,
  type LlmRequest,
  type LlmResponse,
  type Part,
  type Usage,
} from '../../index.js';

/** What the provider answers to the next call, in provider-neutral terms; the fixture puts it on the wire. */
export type ScriptedProviderTurn =
  /** A model turn: text and/or function calls, with the usage the provider reports. Streamed in several pieces when the call streams. */
  | { text?: string; calls?: FunctionCall[]; usage?: Usage }
  /** A failed call: the HTTP status and the provider's message in its error body. */
  | { error: { status: number; message: string } }
  /** A provider that accepts the call and never answers (for the abort signal). */
  | { hang: true };

/** What the provider received, read back by the fixture from the wire. */
export interface ReceivedModelRequest {
  systemInstruction: string | undefined;
  toolNames: string[];
  /** The text of the last user message. */
  userText: string;
}

/** An adapter under test and its scripted provider. */
export interface ModelAdapterFixture {
  /** The adapter, with retries off (or fast) so a failure is reported at once. */
  model: BaseLlm;
  /** Makes the provider answer the next call with this turn. */
  reply(turn: ScriptedProviderTurn): void;
  /** What the provider received in the last call; without it, the request test is skipped. */
  received?: () => ReceivedModelRequest;
  /** Stops the provider. Called after every test. */
  close?: () => Promise<void>;
}

const WEATHER = {
  name: 'get_weather',
  description: 'The weather in a city.',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
};
const USAGE: Usage = { inputTokens: 12, outputTokens: 7, cachedTokens: 4, thoughtTokens: 2 };

function request(text = 'Hello?'): LlmRequest {
  return {
    model: 'test',
    contents: [{ role: 'user', parts: [{ text }] }],
    config: { systemInstruction: 'Be brief.', tools: [WEATHER] },
  };
}

async function collect(model: BaseLlm, req: LlmRequest, stream: boolean, signal?: AbortSignal): Promise<LlmResponse[]> {
  const out: LlmResponse[] = [];
  for await (const response of model.generateContentAsync(req, stream, signal)) out.push(response);
  return out;
}

function textOf(parts: readonly Part[] | undefined): string {
  return (parts ?? []).map((p) => ('text' in p && !p.thought ? p.text : '')).join('');
}

function onlyFinal(responses: LlmResponse[]): LlmResponse {
  const finals = responses.filter((r) => !r.partial);
  expect(finals, 'exactly one response without `partial`').toHaveLength(1);
  expect(responses[responses.length - 1], 'the complete response comes last').toBe(finals[0]);
  return finals[0] as LlmResponse;
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('The call succeeded; the contract expected it to fail.');
}

/** Registers the model-adapter contract suite for one adapter. */
export function modelAdapterContract(name: string, factory: () => Promise<ModelAdapterFixture>): void {
  describe(`model adapter contract: ${name}`, () => {
    let fixture: ModelAdapterFixture;
    beforeEach(async () => {
      fixture = await factory();
    });
    afterEach(async () => {
      await fixture.close?.();
    });

    it('answers with text, usage and one complete response', async () => {
      fixture.reply({ text: 'Paris is the capital.', usage: USAGE });
      const final = onlyFinal(await collect(fixture.model, request(), false));
      expect(final.turnComplete).toBe(true);
      expect(final.content?.role).toBe('model');
      expect(textOf(final.content?.parts)).toBe('Paris is the capital.');
      expect(final.usage).toEqual(USAGE);
      expect(final.errorCode).toBeUndefined();
    });

    it('streams text as partial responses, then the whole answer once', async () => {
      fixture.reply({ text: 'Streaming works fine today.', usage: USAGE });
      const responses = await collect(fixture.model, request(), true);
      const final = onlyFinal(responses);
      const partials = responses.filter((r) => r.partial);
      expect(partials.length).toBeGreaterThanOrEqual(1);
      expect(partials.map((r) => textOf(r.content?.parts)).join('')).toBe('Streaming works fine today.');
      expect(textOf(final.content?.parts)).toBe('Streaming works fine today.');
      expect(final.usage).toEqual(USAGE);
    });

    it.each([false, true])(
      'returns function calls with their names, arguments and unique ids (stream: %s)',
      async (stream) => {
        fixture.reply({
          calls: [
            { id: 'call_1', name: 'get_weather', args: { city: 'Paris' } },
            { id: 'call_2', name: 'get_weather', args: { city: 'Rome' } },
          ],
        });
        const responses = await collect(fixture.model, request('Weather in Paris and Rome?'), stream);
        const final = onlyFinal(responses);
        const calls = (final.content?.parts ?? []).flatMap((p) => ('functionCall' in p ? [p.functionCall] : []));
        expect(calls.map((c) => [c.name, c.args])).toEqual([
          ['get_weather', { city: 'Paris' }],
          ['get_weather', { city: 'Rome' }],
        ]);
        expect(calls.every((c) => typeof c.id === 'string' && c.id !== '')).toBe(true);
        expect(new Set(calls.map((c) => c.id)).size).toBe(2);
        // Calls arrive whole, in the final response only: an agent must not run half a call.
        expect(
          responses.filter((r) => r.partial).some((r) => (r.content?.parts ?? []).some((p) => 'functionCall' in p)),
        ).toBe(false);
      },
    );

    it.each([false, true])(
      "reports the provider's error as a ModelError with the status and its message (stream: %s)",
      async (stream) => {
        fixture.reply({ error: { status: 401, message: 'The key was rejected.' } });
        const error = await failureOf(collect(fixture.model, request(), stream));
        expect(error).toBeInstanceOf(ModelError);
        expect((error as ModelError).status).toBe(401);
        expect((error as ModelError).message).toContain('The key was rejected.');
      },
    );

    it('stops a call that hangs when the abort signal fires, with the signal’s reason', async () => {
      fixture.reply({ hang: true });
      const controller = new AbortController();
      const reason = new Error('stopped by the test');
      setTimeout(() => controller.abort(reason), 50);
      const started = Date.now();
      const error = await failureOf(collect(fixture.model, request(), true, controller.signal));
      expect(error).toBe(reason);
      expect(Date.now() - started).toBeLessThan(5_000);
    });

    it('sends the system instruction, the tools and the user message', async (context) => {
      const { received } = fixture;
      if (!received) {
        context.skip();
        return;
      }
      fixture.reply({ text: 'ok' });
      await collect(fixture.model, request('What is the weather?'), false);
      expect(received()).toEqual({
        systemInstruction: 'Be brief.',
        toolNames: ['get_weather'],
        userText: 'What is the weather?',
      });
    });
  });
}

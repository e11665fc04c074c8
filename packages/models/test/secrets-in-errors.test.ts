import type { BaseLlm, LlmRequest } from '@troupe/core';
import { anthropic, gemini, openaiCompatible } from '@troupe/models';
import { describe, expect, it } from 'vitest';
import type { FakeServer } from './support/fake-server.js';
import { serverPerTest } from './support/server-per-test.js';
import * as anthropicWire from './support/anthropic-wire.js';
import * as geminiWire from './support/gemini-wire.js';
import * as openaiWire from './support/openai-wire.js';

// Regression: a provider's error message is stored in the session's error event; servers that
// echo the rejected key (gateways, OpenAI-compatible servers) put it there.

const KEY = 'local-gateway-key-0042';
const request: LlmRequest = { model: 'm', contents: [{ role: 'user', parts: [{ text: 'Hi' }] }], config: {} };

async function failureOf(model: BaseLlm): Promise<string> {
  const error: unknown = await (async () => {
    for await (const _ of model.generateContentAsync(request, false)) {
      // Only the error matters.
    }
  })().catch((e: unknown) => e);
  return (error as Error).message;
}

describe('provider error messages carry no secrets', () => {
  let server: FakeServer;
  serverPerTest((started) => (server = started));

  it.each([
    [
      'OpenAI-compatible',
      openaiWire.error,
      () => openaiCompatible('m', { apiKey: KEY, baseURL: `${server.url}/v1`, retry: false }),
    ],
    ['Anthropic', anthropicWire.error, () => anthropic('m', { apiKey: KEY, baseURL: server.url, retry: false })],
    ['Gemini', geminiWire.error, () => gemini('m', { apiKey: KEY, baseURL: server.url, retry: false })],
  ] as const)('%s: a 401 that echoes the apiKey option and a bearer token is masked', async (_label, error, make) => {
    server.reply(error(401, `Invalid key '${KEY}' (sent as Authorization: Bearer ${KEY}x9)`));
    const message = await failureOf(make());
    expect(message).toContain('failed with HTTP 401: Invalid key');
    expect(message).not.toContain('local-gateway-key');
    expect(message).toContain("'***'");
  });

  it('a key from the environment that the server echoes is masked too', async () => {
    process.env.TROUPE_TEST_GATEWAY_API_KEY = 'env-gateway-key-7777';
    try {
      server.reply(openaiWire.error(403, 'key env-gateway-key-7777 is disabled'));
      const message = await failureOf(
        openaiCompatible('m', { apiKey: 'other-key-1234', baseURL: `${server.url}/v1`, retry: false }),
      );
      expect(message).toContain('failed with HTTP 403: key *** is disabled');
    } finally {
      delete process.env.TROUPE_TEST_GATEWAY_API_KEY;
    }
  });

  it('a base URL with a password that cannot be used is named without it', async () => {
    const message = await failureOf(
      openaiCompatible('m', { apiKey: 'k-1234', baseURL: `http://user:hunter2hunter2@127.0.0.1:1/v1`, retry: false }),
    );
    expect(message).not.toContain('hunter2hunter2');
  });
});

import { ConfigurationError, ModelError } from '@troupe/core';
import { DEFAULT_RETRY, MALFORMED_ARGUMENTS_KEY, ProviderError } from '@troupe/models';
import { anthropic } from '@troupe/models/anthropic';
import { gemini } from '@troupe/models/gemini';
import { openai } from '@troupe/models/openai';
import { describe, expect, it } from 'vitest';
import { normalizeContents } from '../src/shared/contents.js';
import { providerError } from '../src/shared/errors.js';
import { loadSdk } from '../src/shared/sdk.js';
import { closeObjects, isStrictCompatible } from '../src/shared/schema.js';
import { parseArguments } from '../src/shared/tool-arguments.js';

describe('loading provider SDKs', () => {
  it('says which package to install when the SDK is missing', async () => {
    const missing: string = '@troupe/no-such-sdk';
    const error: unknown = await loadSdk(missing, 'Example', () => import(missing)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toBe(
      "The Example models of @troupe/models need the '@troupe/no-such-sdk' package, which is not installed. Install it in your project: npm install @troupe/no-such-sdk",
    );
  });

  it('passes other load failures through', async () => {
    const broken = new SyntaxError('Unexpected token in the SDK');
    await expect(loadSdk('openai', 'OpenAI', () => Promise.reject(broken))).rejects.toBe(broken);
  });

  it('loads the installed SDKs from the subpath entry points', async () => {
    expect(openai('gpt-4o-mini', { apiKey: 'k' }).model).toBe('gpt-4o-mini');
    expect(gemini('models/gemini-2.5-flash', { apiKey: 'k' }).model).toBe('gemini-2.5-flash');
    expect(anthropic('claude-sonnet-4-5', { apiKey: 'k' }).model).toBe('claude-sonnet-4-5');
    const sdk = await loadSdk('openai', 'OpenAI', () => import('openai'));
    expect(typeof sdk.default).toBe('function');
  });
});

describe('tool arguments', () => {
  it('parses JSON objects and keeps anything else raw under the marker key', () => {
    expect(parseArguments('{"a": 1}')).toEqual({ a: 1 });
    expect(parseArguments('  ')).toEqual({});
    expect(parseArguments('{"a": ')).toEqual({ [MALFORMED_ARGUMENTS_KEY]: '{"a": ' });
    expect(parseArguments('[1, 2]')).toEqual({ [MALFORMED_ARGUMENTS_KEY]: '[1, 2]' });
  });
});

describe('conversation normalisation', () => {
  it('merges turns of one role, puts function responses first and drops thoughts', () => {
    expect(
      normalizeContents([
        { role: 'user', parts: [{ text: 'a' }] },
        { role: 'model', parts: [{ text: 'hmm', thought: true }] },
        { role: 'model', parts: [{ functionCall: { id: '1', name: 'f', args: {} } }] },
        { role: 'user', parts: [{ text: 'context' }] },
        { role: 'user', parts: [{ functionResponse: { id: '1', name: 'f', response: {} } }] },
      ]),
    ).toEqual([
      { role: 'user', parts: [{ text: 'a' }] },
      { role: 'model', parts: [{ functionCall: { id: '1', name: 'f', args: {} } }] },
      { role: 'user', parts: [{ functionResponse: { id: '1', name: 'f', response: {} } }, { text: 'context' }] },
    ]);
  });
});

describe('JSON schema helpers', () => {
  const nested = {
    type: 'object',
    properties: {
      list: { type: 'array', items: { type: 'object', properties: { x: { type: 'string' } }, required: ['x'] } },
    },
    required: ['list'],
  };

  it('closes every object, nested ones included, without touching other keywords', () => {
    expect(closeObjects(nested)).toEqual({
      type: 'object',
      additionalProperties: false,
      properties: {
        list: {
          type: 'array',
          items: {
            type: 'object',
            additionalProperties: false,
            properties: { x: { type: 'string' } },
            required: ['x'],
          },
        },
      },
      required: ['list'],
    });
    expect(
      closeObjects({ type: 'object', properties: { properties: { type: 'string' } }, additionalProperties: true }),
    ).toEqual({
      type: 'object',
      properties: { properties: { type: 'string' } },
      additionalProperties: true,
    });
  });

  it("tells whether a schema meets OpenAI's strict mode", () => {
    expect(isStrictCompatible(nested)).toBe(false);
    expect(isStrictCompatible(closeObjects(nested))).toBe(true);
    expect(
      isStrictCompatible({
        type: 'object',
        properties: { a: { type: 'string' } },
        required: [],
        additionalProperties: false,
      }),
    ).toBe(false);
  });
});

describe('provider errors', () => {
  it('name the provider, the model, the status and the message, with a hint for key problems', () => {
    const error = providerError(
      { provider: 'openai', label: 'OpenAI', keyHint: 'OPENAI_API_KEY or the apiKey option' },
      'gpt-4o',
      { status: 401, message: 'Incorrect API key provided.' },
      undefined,
    );
    expect(error).toBeInstanceOf(ModelError);
    expect(error).toBeInstanceOf(ProviderError);
    expect(error.message).toBe(
      "OpenAI request for model 'gpt-4o' failed with HTTP 401: Incorrect API key provided. Check the API key (OPENAI_API_KEY or the apiKey option).",
    );
    expect(error).toMatchObject({ status: 401, provider: 'openai', code: 'MODEL' });
  });

  it('say when a stream broke off before an HTTP status could tell more', () => {
    const error = providerError(
      { provider: 'anthropic', label: 'Anthropic' },
      'claude',
      { message: 'terminated', retryable: true },
      undefined,
      'stream',
    );
    expect(error.message).toBe("Anthropic stream for model 'claude' broke off: terminated");
    expect(error.status).toBeUndefined();
    expect(error.retryable).toBe(true);
  });

  it('document the default retry policy in one place', () => {
    expect(DEFAULT_RETRY).toEqual({ maxAttempts: 3, initialDelayMs: 1000, maxDelayMs: 30_000, jitter: true });
  });
});

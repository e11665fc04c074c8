import { MALFORMED_ARGUMENTS_KEY, gemini } from '@troupe/models';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { asker, collect } from '../support/collect.js';
import { sse, type FakeServer } from '../support/fake-server.js';
import { serverPerTest } from '../support/server-per-test.js';

/**
 * Issue #28, item 5. With `toolConfig.functionCallingConfig.streamFunctionCallArguments` (Vertex AI,
 * Gemini 3), a function call arrives over several chunks: the name (and id) first with
 * `willContinue: true`, then `partialArgs` fragments ({ jsonPath, stringValue | numberValue |
 * boolValue | nullValue, willContinue }) where a string may be split across chunks, and a last
 * part without `willContinue`. The adapter must assemble the arguments, not report `{}`.
 */

const frame = (parts: unknown[], extra: Record<string, unknown> = {}): string =>
  `data: ${JSON.stringify({
    candidates: [{ content: { role: 'model', parts }, index: 0, ...extra }],
    modelVersion: 'gemini-3-pro-preview',
    responseId: 'resp-1',
  })}`;

const call = (fields: Record<string, unknown>, extras: Record<string, unknown> = {}) => ({
  functionCall: fields,
  ...extras,
});

/** Two calls with streamed arguments, as Vertex AI sends them over `streamGenerateContent?alt=sse`. */
const STREAMED_CALLS = [
  frame([{ text: 'Saving the note.' }]),
  frame([call({ name: 'save_note', willContinue: true }, { thoughtSignature: 'c2lnLTE=' })]),
  frame([
    call({ partialArgs: [{ jsonPath: '$.title', stringValue: 'Trip ', willContinue: true }], willContinue: true }),
  ]),
  frame([
    call({
      partialArgs: [
        { jsonPath: '$.title', stringValue: 'to Ly', willContinue: true },
        { jsonPath: '$.meta.priority', numberValue: 2 },
      ],
      willContinue: true,
    }),
  ]),
  frame([
    call({
      partialArgs: [
        { jsonPath: '$.title', stringValue: 'on' },
        { jsonPath: '$.items[0].name', stringValue: 'tick', willContinue: true },
      ],
      willContinue: true,
    }),
  ]),
  frame([
    call({
      partialArgs: [
        { jsonPath: '$.items[0].name', stringValue: 'ets' },
        { jsonPath: '$.items[0].done', boolValue: false },
        { jsonPath: "$.items[1]['name']", stringValue: 'hotel' },
        { jsonPath: '$.items[1].note', nullValue: 'NULL_VALUE' },
        { jsonPath: '$.meta.tags[0]', stringValue: 'travel' },
      ],
      willContinue: true,
    }),
  ]),
  frame([call({})]),
  frame([call({ name: 'notify', id: 'call-2', willContinue: true })]),
  frame([call({ partialArgs: [{ jsonPath: '$.to', stringValue: 'a', willContinue: true }], willContinue: true })]),
  frame([call({ partialArgs: [{ jsonPath: '$.to', stringValue: 'na' }] })]),
  `data: ${JSON.stringify({
    candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason: 'STOP', index: 0 }],
    usageMetadata: { promptTokenCount: 20, candidatesTokenCount: 30, totalTokenCount: 50 },
    modelVersion: 'gemini-3-pro-preview',
  })}`,
];

const ask = asker('gemini-3-pro-preview');

describe('Gemini streamed function-call arguments (streamFunctionCallArguments)', () => {
  let server: FakeServer;
  serverPerTest((started) => (server = started));

  // Vertex AI express mode (an API key, no project): nothing from the environment may pick credentials.
  const saved = { ...process.env };
  beforeEach(() => {
    delete process.env.GOOGLE_CLOUD_PROJECT;
  });
  afterEach(() => {
    process.env = { ...saved };
  });

  const model = () =>
    gemini('gemini-3-pro-preview', {
      vertexai: true,
      apiKey: 'vx-test',
      baseURL: server.url,
      config: { toolConfig: { functionCallingConfig: { streamFunctionCallArguments: true } } },
    });

  it('assembles the arguments of each call from its fragments', async () => {
    server.reply(sse(STREAMED_CALLS));
    const responses = await collect(
      model(),
      ask({
        tools: [
          { name: 'save_note', description: 'Saves a note.', parameters: { type: 'object' } },
          { name: 'notify', description: 'Notifies someone.', parameters: { type: 'object' } },
        ],
      }),
      true,
    );

    const sent = server.requests[0]!;
    expect(sent.path).toContain(':streamGenerateContent');
    expect(sent.path).toContain('alt=sse');
    expect(sent.body.toolConfig).toEqual({ functionCallingConfig: { streamFunctionCallArguments: true } });

    const final = responses.at(-1)!;
    expect(final.partial).toBeFalsy();
    const parts = final.content!.parts;
    expect(parts[0]).toEqual({ text: 'Saving the note.' });
    const calls = parts.filter((p) => 'functionCall' in p);
    expect(calls).toHaveLength(2);
    expect(calls[0]).toMatchObject({
      thoughtSignature: 'c2lnLTE=',
      functionCall: {
        name: 'save_note',
        args: {
          title: 'Trip to Lyon',
          meta: { priority: 2, tags: ['travel'] },
          items: [
            { name: 'tickets', done: false },
            { name: 'hotel', note: null },
          ],
        },
      },
    });
    // An index in the path makes an array, not an object with keys '0' and '1'.
    expect(Array.isArray(calls[0]!.functionCall.args?.items)).toBe(true);
    expect(calls[1]).toEqual({ functionCall: { id: 'call-2', name: 'notify', args: { to: 'ana' } } });
    expect(final.finishReason).toBe('STOP');
  });

  it('keeps a model-written __proto__ path as data and a path naming no single place under _malformedArguments', async () => {
    server.reply(
      sse([
        frame([call({ name: 'save_note', willContinue: true })]),
        frame([
          call({
            partialArgs: [
              { jsonPath: '$.__proto__.polluted', stringValue: 'yes' },
              { jsonPath: '$.items[*].name', stringValue: 'all' },
              { jsonPath: '$.title', stringValue: 'Kept' },
            ],
          }),
        ]),
        `data: ${JSON.stringify({
          candidates: [{ content: { role: 'model', parts: [] }, finishReason: 'STOP', index: 0 }],
        })}`,
      ]),
    );
    const responses = await collect(model(), ask(), true);
    const args = (responses.at(-1)!.content!.parts[0] as { functionCall: { args: Record<string, unknown> } })
      .functionCall.args;
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.getPrototypeOf(args)).toBe(Object.prototype);
    expect(Object.hasOwn(args, '__proto__')).toBe(true);
    expect(args.title).toBe('Kept');
    expect(JSON.parse(args[MALFORMED_ARGUMENTS_KEY] as string)).toEqual([
      { jsonPath: '$.items[*].name', stringValue: 'all' },
    ]);
  });
});

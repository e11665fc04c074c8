import fc from 'fast-check';
import {
  BaseLlm,
  type Content,
  FunctionAgent,
  FunctionTool,
  LlmAgent,
  type LlmRequest,
  type LlmResponse,
} from '@troupe/core';

// What the fuzz tests of the HTTP endpoints share: the apps they are thrown at, and generated
// JSON-ish values.

/** An app that answers at once with what it was given. */
export function echoAgent(): FunctionAgent {
  return new FunctionAgent({ name: 'Echo', run: (input) => ({ echoed: input }) });
}

/** A model without a script: "send" asks to run transfer_money, a tool result is reported, anything else echoed. */
class DeskModel extends BaseLlm {
  async *generateContentAsync(request: LlmRequest): AsyncGenerator<LlmResponse> {
    const last = request.contents.at(-1)?.parts ?? [];
    const said = last.map((p) => ('text' in p ? p.text : '')).join(' ');
    const content: Content = last.some((p) => 'functionResponse' in p)
      ? { role: 'model', parts: [{ text: 'done' }] }
      : said.includes('send')
        ? {
            role: 'model',
            parts: [{ functionCall: { id: `t${request.contents.length}`, name: 'transfer_money', args: {} } }],
          }
        : { role: 'model', parts: [{ text: `You said: ${said}` }] };
    yield { content, usage: { inputTokens: 1, outputTokens: 1 }, turnComplete: true };
  }
}

/**
 * An app that pauses on an approval: asked to "send", its model calls `transfer_money`, a tool that
 * needs confirmation; anything else is echoed.
 */
export function deskAgent(): LlmAgent {
  const transfer = new FunctionTool({
    name: 'transfer_money',
    description: 'Sends money.',
    requireConfirmation: true,
    execute: () => ({ sent: true }),
  });
  return new LlmAgent({ name: 'desk', model: new DeskModel('fuzz/desk'), tools: [transfer] });
}

/** Object keys that are easy to get wrong: the prototype's names, empty, dotted, NUL, a lone surrogate. */
export const awkwardKey = fc.constantFrom('__proto__', 'constructor', 'prototype', '', 'a.b', '\u0000', '\ud800');

/**
 * JSON-ish values a few levels deep: JSON, binary strings, arrays, and objects whose keys come from
 * `key` (by default an awkward key or a short string); at most `size` items or keys at each level.
 */
export function jsonishValue(
  key: fc.Arbitrary<string> = fc.oneof(awkwardKey, fc.string({ maxLength: 8 })),
  size = 4,
): fc.Arbitrary<unknown> {
  return fc.letrec((tie) => ({
    node: fc.oneof(
      { depthSize: 'small' },
      fc.jsonValue({ maxDepth: 3 }),
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.array(tie('node'), { maxLength: size }),
      fc.dictionary(key, tie('node'), { maxKeys: size }),
    ),
  })).node;
}

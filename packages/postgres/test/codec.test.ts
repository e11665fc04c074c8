import { describe, expect, it } from 'vitest';
import { PLAIN_FORMAT, VALUE_FORMAT, decodeKey, decodeValue, encodeKey, encodeValue } from '../src/codec.js';

/** What JSONB accepts: no NUL and no unpaired surrogate, neither raw nor as a \u escape. */
function jsonbWouldAccept(text: string): boolean {
  if (/\\u0000|\\ud[89a-f]/i.test(text.replace(/\\\\/g, ''))) return false;
  if (text.includes('\u0000')) return false;
  return !/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/.test(text);
}

const roundTrip = (value: unknown): unknown => {
  const encoded = encodeValue(value, () => 'value');
  expect(jsonbWouldAccept(encoded.text)).toBe(true);
  return decodeValue(encoded.format, JSON.parse(encoded.text), () => 'value');
};

describe('value codec', () => {
  it('leaves JSON that needs no escaping as it is, in the plain format', () => {
    for (const value of [
      { a: 'b' },
      ['x', 1, null],
      'a \\u0000 written out',
      { 'back\\slash': '\\\\u0000' },
      'pair \ud83c\udf89',
    ]) {
      const encoded = encodeValue(value, () => 'value');
      expect(encoded).toEqual({ text: JSON.stringify(value), format: PLAIN_FORMAT });
    }
  });

  it('escapes only NUL, lone surrogates and the marker, readably', () => {
    expect(encodeValue({ t: 'a\u0000b', 'k\udc00': '\uFFFD' }, () => 'value')).toEqual({
      text: '{"t":"a\uFFFD0000b","k\uFFFDdc00":"\uFFFDfffd"}',
      format: VALUE_FORMAT,
    });
  });

  it('round-trips any mix of the awkward characters, backslashes and quotes exactly', () => {
    const alphabet = ['\u0000', '\\', 'u', '0', 'd', '8', '\ud800', '\udc00', '\ud83c\udf89', '\uFFFD', 'f', '"', 'a'];
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    for (let i = 0; i < 2000; i++) {
      const text = Array.from({ length: 1 + random(12) }, () => alphabet[random(alphabet.length)]).join('');
      const value = { [text]: [text, { nested: text }] };
      expect(roundTrip(value)).toEqual(value);
      expect(decodeKey(encodeKey(text))).toBe(text);
      expect(jsonbWouldAccept(JSON.stringify(encodeKey(text)))).toBe(true);
    }
  });
});

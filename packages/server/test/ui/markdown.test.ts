import { expect, it } from 'vitest';
import { parseInline, parseMarkdown } from '../../ui/src/model/markdown.js';

// The dev UI's Markdown reader for model text: a tree of blocks and inline elements whose leaves are
// text, never HTML (the renderer makes text nodes of them).

it('reads headings, paragraphs, lists, quotes and fenced code', () => {
  const text =
    '## Plan\n\nFirst **bold** line\nsecond line\n\n- one\n- two `x`\n\n3. three\n4. four\n\n> quoted\n\n```ts\nconst a = "<b>";\n```';
  expect(parseMarkdown(text)).toEqual([
    { t: 'h', level: 2, children: [{ t: 'text', text: 'Plan' }] },
    {
      t: 'p',
      children: [
        { t: 'text', text: 'First ' },
        { t: 'strong', children: [{ t: 'text', text: 'bold' }] },
        { t: 'text', text: ' line\nsecond line' },
      ],
    },
    {
      t: 'ul',
      items: [
        [{ t: 'text', text: 'one' }],
        [
          { t: 'text', text: 'two ' },
          { t: 'code', text: 'x' },
        ],
      ],
    },
    { t: 'ol', start: 3, items: [[{ t: 'text', text: 'three' }], [{ t: 'text', text: 'four' }]] },
    { t: 'quote', children: [{ t: 'p', children: [{ t: 'text', text: 'quoted' }] }] },
    { t: 'code', lang: 'ts', text: 'const a = "<b>";' },
  ]);
});

it('keeps HTML as text, and links only to http, https and mailto addresses', () => {
  expect(parseInline('<script>alert(1)</script> *hi*')).toEqual([
    { t: 'text', text: '<script>alert(1)</script> ' },
    { t: 'em', children: [{ t: 'text', text: 'hi' }] },
  ]);
  expect(parseInline('[docs](https://example.com/a) and [bad](javascript:alert`1`)')).toEqual([
    { t: 'link', href: 'https://example.com/a', children: [{ t: 'text', text: 'docs' }] },
    { t: 'text', text: ' and ' },
    { t: 'text', text: 'bad' },
  ]);
  expect(parseInline('[x](data:text/html,<b>)')).toEqual([{ t: 'text', text: 'x' }]);
});

it('leaves snake_case words and lone stars alone', () => {
  expect(parseInline('call lookup_weather_now with 2 * 3')).toEqual([
    { t: 'text', text: 'call lookup_weather_now with 2 * 3' },
  ]);
});

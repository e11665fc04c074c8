/**
 * A small Markdown reader for model text: paragraphs, headings, lists, block quotes, fenced code,
 * and inline code, bold, italic and links. It produces a tree that the UI renders as elements with
 * text children, so nothing in the text is ever read as HTML (a `<script>` stays text). Links keep
 * only http, https and mailto addresses; any other is shown as its text.
 */

export type MdInline =
  | { t: 'text'; text: string }
  | { t: 'code'; text: string }
  | { t: 'strong'; children: MdInline[] }
  | { t: 'em'; children: MdInline[] }
  | { t: 'link'; href: string; children: MdInline[] };

export type MdBlock =
  | { t: 'p'; children: MdInline[] }
  | { t: 'h'; level: number; children: MdInline[] }
  | { t: 'ul'; items: MdInline[][] }
  | { t: 'ol'; start: number; items: MdInline[][] }
  | { t: 'code'; lang: string; text: string }
  | { t: 'quote'; children: MdBlock[] };

const FENCE = /^\s{0,3}(```|~~~)\s*([\w+-]*)\s*$/;
const HEADING = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/;
const BULLET = /^\s{0,3}[-*+]\s+(.*)$/;
const NUMBERED = /^\s{0,3}(\d{1,9})[.)]\s+(.*)$/;
const QUOTE = /^\s{0,3}>\s?(.*)$/;
const SAFE_HREF = /^(?:https?:\/\/|mailto:)/i;

/** The blocks of a Markdown text. */
export function parseMarkdown(text: string): MdBlock[] {
  const lines = text.replace(/\r\n?/g, '\n').split('\n');
  const blocks: MdBlock[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    const fence = FENCE.exec(line);
    if (fence) {
      const body: string[] = [];
      i++;
      while (i < lines.length && !lines[i]!.trim().startsWith(fence[1]!)) body.push(lines[i++]!);
      i++; // the closing fence (or the end of the text)
      blocks.push({ t: 'code', lang: fence[2] ?? '', text: body.join('\n') });
      continue;
    }
    if (line.trim() === '') {
      i++;
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading) {
      blocks.push({ t: 'h', level: heading[1]!.length, children: parseInline(heading[2]!) });
      i++;
      continue;
    }
    if (QUOTE.test(line)) {
      const quoted: string[] = [];
      while (i < lines.length && QUOTE.test(lines[i]!)) quoted.push(QUOTE.exec(lines[i++]!)![1]!);
      blocks.push({ t: 'quote', children: parseMarkdown(quoted.join('\n')) });
      continue;
    }
    if (BULLET.test(line) || NUMBERED.test(line)) {
      const numbered = NUMBERED.exec(line);
      const pattern = numbered ? NUMBERED : BULLET;
      const items: string[] = [];
      while (i < lines.length && lines[i]!.trim() !== '') {
        const item = pattern.exec(lines[i]!);
        if (item) items.push(item[numbered ? 2 : 1]!);
        else if (items.length > 0 && /^\s+\S/.test(lines[i]!)) items[items.length - 1] += ` ${lines[i]!.trim()}`;
        else break;
        i++;
      }
      const parsed = items.map(parseInline);
      blocks.push(numbered ? { t: 'ol', start: Number(numbered[1]), items: parsed } : { t: 'ul', items: parsed });
      continue;
    }
    const paragraph: string[] = [];
    while (i < lines.length && lines[i]!.trim() !== '' && !startsBlock(lines[i]!)) paragraph.push(lines[i++]!.trim());
    blocks.push({ t: 'p', children: parseInline(paragraph.join('\n')) });
  }
  return blocks;
}

function startsBlock(line: string): boolean {
  return FENCE.test(line) || HEADING.test(line) || QUOTE.test(line) || BULLET.test(line) || NUMBERED.test(line);
}

/** The inline elements of one block's text. */
export function parseInline(text: string): MdInline[] {
  const out: MdInline[] = [];
  let plain = '';
  const flush = () => {
    if (plain !== '') out.push({ t: 'text', text: plain });
    plain = '';
  };
  let i = 0;
  while (i < text.length) {
    const rest = text.slice(i);
    const code = /^(`+)([\s\S]*?[^`])\1(?!`)/.exec(rest);
    if (code) {
      flush();
      out.push({ t: 'code', text: code[2]!.trim() === '' ? code[2]! : code[2]!.replace(/^ (.*) $/s, '$1') });
      i += code[0].length;
      continue;
    }
    const strong = /^(\*\*|__)(?=\S)([\s\S]*?\S)\1/.exec(rest);
    if (strong) {
      flush();
      out.push({ t: 'strong', children: parseInline(strong[2]!) });
      i += strong[0].length;
      continue;
    }
    const em = /^(\*|_)(?=\S)([\s\S]*?\S)\1(?![*_\w])/.exec(rest);
    if (em && (em[1] === '*' || !/\w/.test(text[i - 1] ?? ''))) {
      flush();
      out.push({ t: 'em', children: parseInline(em[2]!) });
      i += em[0].length;
      continue;
    }
    const link = /^\[([^\]\n]{1,500})\]\(\s*([^()\s]{1,2000})\s*\)/.exec(rest);
    if (link) {
      flush();
      const children = parseInline(link[1]!);
      if (SAFE_HREF.test(link[2]!)) out.push({ t: 'link', href: link[2]!, children });
      else out.push(...children);
      i += link[0].length;
      continue;
    }
    plain += text[i];
    i++;
  }
  flush();
  return out;
}

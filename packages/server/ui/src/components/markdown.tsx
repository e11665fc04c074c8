import type { ComponentChildren } from 'preact';
import { type MdBlock, type MdInline, parseMarkdown } from '../model/markdown.js';

/** Model text rendered from Markdown; every piece of the text is a text node, never HTML. */
export function Markdown({ text }: { text: string }) {
  return <div class="markdown">{parseMarkdown(text).map(renderBlock)}</div>;
}

function renderBlock(block: MdBlock, key: number): ComponentChildren {
  switch (block.t) {
    case 'p':
      return <p key={key}>{inlines(block.children)}</p>;
    case 'h': {
      // Headings inside a message stay smaller than the panel's own.
      const Tag = `h${Math.min(block.level + 2, 6)}` as 'h3';
      return (
        <Tag key={key} class="md-heading">
          {inlines(block.children)}
        </Tag>
      );
    }
    case 'ul':
      return (
        <ul key={key}>
          {block.items.map((item, i) => (
            <li key={i}>{inlines(item)}</li>
          ))}
        </ul>
      );
    case 'ol':
      return (
        <ol key={key} start={block.start}>
          {block.items.map((item, i) => (
            <li key={i}>{inlines(item)}</li>
          ))}
        </ol>
      );
    case 'code':
      return (
        <pre key={key} class="md-code" data-lang={block.lang || undefined}>
          <code>{block.text}</code>
        </pre>
      );
    case 'quote':
      return <blockquote key={key}>{block.children.map(renderBlock)}</blockquote>;
  }
}

function inlines(items: readonly MdInline[]): ComponentChildren {
  return items.map((item, key) => {
    switch (item.t) {
      case 'text':
        return lines(item.text, key);
      case 'code':
        return <code key={key}>{item.text}</code>;
      case 'strong':
        return <strong key={key}>{inlines(item.children)}</strong>;
      case 'em':
        return <em key={key}>{inlines(item.children)}</em>;
      case 'link':
        return (
          <a key={key} href={item.href} target="_blank" rel="noopener noreferrer">
            {inlines(item.children)}
          </a>
        );
    }
  });
}

/** A paragraph's line breaks stay line breaks. */
function lines(text: string, key: number): ComponentChildren {
  const parts = text.split('\n');
  if (parts.length === 1) return text;
  return parts.map((part, i) => (
    <span key={`${key}-${i}`}>
      {i > 0 && <br />}
      {part}
    </span>
  ));
}

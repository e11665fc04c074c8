import { readFileSync } from 'node:fs';

/** The first ```ts block of a Markdown file: the README's "A multi-agent app in 20 lines". */
export function firstTypeScriptExample(markdownFile: string): string {
  const match = /^```ts\n([\s\S]*?)^```$/m.exec(readFileSync(markdownFile, 'utf8'));
  if (match === null) throw new Error(`${markdownFile} has no \`\`\`ts example.`);
  return match[1]!;
}

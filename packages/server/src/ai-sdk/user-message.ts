import type { Content, Part } from '@troupe/core';
import { type ChatMessage, invalid } from './chat-body.js';

/** `data:<media type>[;params];base64,<data>`: the only files a user message can bring (useChat inlines uploads). */
const DATA_URL = /^data:([^;,]*)((?:;[^;,]*)*?);base64,(.*)$/s;

/**
 * The user's UI message as the user's Content: text parts as text, file parts (data URLs, as
 * `useChat` sends uploaded files) as inline data. Parts a user message has no use for in a turn
 * (data parts, step markers) are left out. `field` names the message in errors (`messages.3`).
 */
export function userContentOf(message: ChatMessage, field: string): Content {
  const parts: Part[] = [];
  message.parts.forEach((part, i) => {
    const at = `${field}.parts.${i}`;
    if (part.type === 'text') {
      if (typeof part.text !== 'string') throw invalid(`${at}.text`, 'expected the text as a string');
      parts.push({ text: part.text });
    } else if (part.type === 'file') {
      parts.push(filePart(part, at));
    }
  });
  if (parts.length === 0) {
    throw invalid(
      `${field}.parts`,
      "expected at least one text or file part in the user message, such as { type: 'text', text: 'Hello' }",
    );
  }
  return { role: 'user', parts };
}

function filePart(part: Record<string, unknown>, at: string): Part {
  const { url, mediaType, filename } = part;
  if (typeof url !== 'string') throw invalid(`${at}.url`, 'expected the file as a data URL string');
  const match = DATA_URL.exec(url);
  if (!match) {
    throw invalid(
      `${at}.url`,
      `expected a base64 data URL ('data:<media type>;base64,...'), as useChat sends uploaded files; got ${JSON.stringify(url.slice(0, 60))}. Troupe does not fetch URLs for the model: read the file and send its contents`,
    );
  }
  const mimeType = typeof mediaType === 'string' && mediaType !== '' ? mediaType : match[1]!;
  if (mimeType === '') throw invalid(`${at}.mediaType`, "expected the file's media type, such as 'image/png'");
  // The upload's name, so SaveFilesAsArtifactsPlugin can save it as the artifact of that name.
  const named = typeof filename === 'string' && filename !== '' ? { displayName: filename } : {};
  return { inlineData: { mimeType, data: match[3]!, ...named } };
}

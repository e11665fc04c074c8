import type { Part } from '@troupe/core';
import { invalid, kindOf } from './invalid.js';

/**
 * One message of a chat completion request, as Troupe uses it. System and developer messages are
 * read (so a malformed one is refused) and kept out of the session: the app's agents carry their
 * own instructions, and a client's system prompt would otherwise rewrite them for every caller.
 */
export type ChatMessage =
  { role: 'system' | 'developer' } | { role: 'user'; parts: Part[] } | { role: 'assistant'; text: string };

const ROLES = "'system', 'developer', 'user' or 'assistant'";

/** Reads the message at `path` (`messages[3]`): its role and content in OpenAI's shapes. */
export function readMessage(raw: unknown, path: string): ChatMessage {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw invalid(path, `expected a message object such as { "role": "user", "content": "Hi" }; got ${kindOf(raw)}`);
  const message = raw as Record<string, unknown>;
  const { role, content, name } = message;
  if (name !== undefined && name !== null && typeof name !== 'string')
    throw invalid(`${path}.name`, `expected a string; got ${kindOf(name)}`);
  switch (role) {
    case 'system':
    case 'developer':
      textOf(content, `${path}.content`, ['text']);
      return { role };
    case 'user':
      return { role, parts: userParts(content, `${path}.content`) };
    case 'assistant':
      return { role, text: assistantText(message, path) };
    case 'tool':
    case 'function':
      throw invalid(
        `${path}.role`,
        `'${role}' messages answer tool calls made by the client, and the app's agents run their own tools on the server. Send only ${ROLES} messages`,
      );
    default:
      throw invalid(`${path}.role`, `expected ${ROLES}; got ${kindOf(role)}`);
  }
}

/** The text of string content or of an array of parts of the given types (`text`, `refusal`). */
function textOf(content: unknown, path: string, types: readonly ('text' | 'refusal')[]): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content))
    throw invalid(path, `expected a string or an array of ${types.join(' or ')} parts; got ${kindOf(content)}`);
  return content
    .map((part, index) => {
      const at = `${path}[${index}]`;
      const type = (part as { type?: unknown } | null)?.type;
      if (typeof part !== 'object' || part === null || !types.includes(type as 'text'))
        throw invalid(
          `${at}.type`,
          `expected a part of type ${types.map((t) => `'${t}'`).join(' or ')}; got ${kindOf(type ?? part)}`,
        );
      const text = (part as Record<string, unknown>)[type as string];
      if (typeof text !== 'string') throw invalid(`${at}.${String(type)}`, `expected a string; got ${kindOf(text)}`);
      return text;
    })
    .join('');
}

/** An assistant message's text; the tool calls of the client's own model cannot be replayed to an app. */
function assistantText(message: Record<string, unknown>, path: string): string {
  const { content, tool_calls: toolCalls, function_call: functionCall } = message;
  if ((Array.isArray(toolCalls) && toolCalls.length > 0) || (functionCall !== undefined && functionCall !== null))
    throw invalid(
      `${path}.${Array.isArray(toolCalls) ? 'tool_calls' : 'function_call'}`,
      "an assistant message with tool calls comes from a model that called the client's tools; the app's agents run their own. Send the assistant's text only",
    );
  if (toolCalls !== undefined && toolCalls !== null && !Array.isArray(toolCalls))
    throw invalid(`${path}.tool_calls`, `expected an array; got ${kindOf(toolCalls)}`);
  if (content === undefined || content === null) return '';
  return textOf(content, `${path}.content`, ['text', 'refusal']);
}

/** A user message's content as Troupe parts: text, and images, audio and files sent inline. */
function userParts(content: unknown, path: string): Part[] {
  if (typeof content === 'string') return [{ text: content }];
  if (!Array.isArray(content) || content.length === 0)
    throw invalid(
      path,
      `expected a string or a non-empty array of content parts ({ "type": "text", "text": "..." }); got ${Array.isArray(content) ? 'an empty array' : kindOf(content)}`,
    );
  return content.map((part, index) => userPart(part, `${path}[${index}]`));
}

function userPart(part: unknown, path: string): Part {
  if (typeof part !== 'object' || part === null || Array.isArray(part))
    throw invalid(path, `expected a content part object; got ${kindOf(part)}`);
  const fields = part as Record<string, unknown>;
  switch (fields.type) {
    case 'text':
      if (typeof fields.text !== 'string')
        throw invalid(`${path}.text`, `expected a string; got ${kindOf(fields.text)}`);
      return { text: fields.text };
    case 'image_url': {
      const url = (fields.image_url as { url?: unknown } | null | undefined)?.url;
      return { inlineData: dataUrl(url, `${path}.image_url.url`, 'image') };
    }
    case 'input_audio': {
      const audio = fields.input_audio as { data?: unknown; format?: unknown } | null | undefined;
      if (audio?.format !== 'wav' && audio?.format !== 'mp3')
        throw invalid(`${path}.input_audio.format`, `expected 'wav' or 'mp3'; got ${kindOf(audio?.format)}`);
      return {
        inlineData: { mimeType: `audio/${audio.format}`, data: base64(audio.data, `${path}.input_audio.data`) },
      };
    }
    case 'file': {
      const file = fields.file as { file_data?: unknown; file_id?: unknown; filename?: unknown } | null | undefined;
      if (file?.file_data === undefined && file?.file_id !== undefined)
        throw invalid(
          `${path}.file.file_id`,
          'this server keeps no uploaded files; send the file inline as file_data (a data: URL such as data:application/pdf;base64,...)',
        );
      const inline = dataUrl(file?.file_data, `${path}.file.file_data`, 'file');
      // The upload's name, so SaveFilesAsArtifactsPlugin can save it as the artifact of that name.
      const filename = file?.filename;
      return {
        inlineData: typeof filename === 'string' && filename !== '' ? { ...inline, displayName: filename } : inline,
      };
    }
    default:
      throw invalid(
        `${path}.type`,
        `expected 'text', 'image_url', 'input_audio' or 'file'; got ${kindOf(fields.type)}`,
      );
  }
}

const DATA_URL = /^data:([\w.+-]+\/[\w.+-]+)(?:;[\w.+-]+=[^;,]*)*;base64,(.*)$/s;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The media of a `data:<type>;base64,<data>` URL: the server fetches nothing, so a web URL is refused. */
function dataUrl(url: unknown, path: string, what: 'image' | 'file'): { mimeType: string; data: string } {
  const match = typeof url === 'string' ? DATA_URL.exec(url) : null;
  if (!match) {
    const web = typeof url === 'string' && /^https?:/i.test(url);
    throw invalid(
      path,
      `expected the ${what} inline as a data: URL such as data:${what === 'image' ? 'image/png' : 'application/pdf'};base64,...; got ${web ? 'a web URL, which this server does not fetch' : kindOf(url)}`,
    );
  }
  return { mimeType: match[1]!.toLowerCase(), data: base64(match[2], path) };
}

function base64(data: unknown, path: string): string {
  const compact = typeof data === 'string' ? data.replace(/\s+/g, '') : '';
  if (compact === '' || !BASE64.test(compact))
    throw invalid(
      path,
      `expected base64 data; got ${typeof data === 'string' ? 'text that is not base64' : kindOf(data)}`,
    );
  return compact;
}

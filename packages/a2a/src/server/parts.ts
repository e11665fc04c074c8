import { Role, type Message, type Part as A2aPart } from '@a2a-js/sdk';
import { ContentTypeNotSupportedError, RequestMalformedError } from '@a2a-js/sdk/errors';
import type { Content, Part } from '@troupe/core';
import { inlinePart, toA2aParts as toPartsOfA2a } from '../a2a-parts.js';

export { dataPart, textPart } from '../a2a-parts.js';

/** A message from the agent to the client. */
export function agentMessage(
  ids: { messageId: string; taskId: string; contextId: string },
  parts: A2aPart[],
  metadata?: Record<string, unknown>,
): Message {
  return { ...ids, role: Role.ROLE_AGENT, parts, metadata, extensions: [], referenceTaskIds: [] };
}

/** A message of the user, as the task's history shows it. */
export function userMessage(ids: { messageId: string; taskId: string; contextId: string }, parts: A2aPart[]): Message {
  return { ...ids, role: Role.ROLE_USER, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
}

/** What a Troupe message shows a client (see the shared {@link toPartsOfA2a}). */
export function toA2aParts(content: Content | undefined): A2aPart[] {
  return toPartsOfA2a(content?.parts ?? []);
}

/** The parts of an incoming message, as Troupe parts, and the values of its data parts. */
export interface IncomingParts {
  /** Text and files; each data part as its JSON text. */
  parts: Part[];
  /** The values of the data parts, in order. */
  data: unknown[];
  /** The text of the text parts, joined with newlines. */
  text: string;
}

/**
 * Reads a client's message parts. Files by URL are refused: the agent cannot fetch them, and
 * fetching any URL a client names would let it make this server call other hosts.
 */
export function fromA2aParts(parts: readonly A2aPart[]): IncomingParts {
  if (parts.length === 0) {
    throw new RequestMalformedError(
      "message.parts is empty; send at least one part, e.g. { text: 'Hello' } (v0.3: { kind: 'text', text: 'Hello' }).",
    );
  }
  const out: IncomingParts = { parts: [], data: [], text: '' };
  const texts: string[] = [];
  parts.forEach((part, index) => {
    const content = part.content;
    switch (content?.$case) {
      case 'text':
        texts.push(content.value);
        out.parts.push({ text: content.value });
        break;
      case 'data':
        out.data.push(content.value);
        out.parts.push({ text: JSON.stringify(content.value) });
        break;
      case 'raw':
        out.parts.push(inlinePart(part, content.value));
        break;
      case 'url':
        throw new ContentTypeNotSupportedError(
          `message.parts[${index}] is a file by URL (${JSON.stringify(content.value.slice(0, 200))}), which this agent does not fetch. Send the file's bytes in the part instead (v1.0: raw; v0.3: file.bytes), or the URL as text.`,
        );
      case undefined:
        throw new RequestMalformedError(
          `message.parts[${index}] has no content; give it text, data or a file, e.g. { text: 'Hello' } (v0.3: { kind: 'text', text: 'Hello' }).`,
        );
    }
  });
  out.text = texts.join('\n');
  return out;
}

import { randomUUID } from 'node:crypto';
import { Role, type Message, type Part as A2aPart } from '@a2a-js/sdk';
import type { Part } from '@troupe/core';
import { inlinePart } from '../a2a-parts.js';

/**
 * Converting between Troupe's content parts (Gemini shape) and A2A parts. A2A text parts marked as
 * thoughts (`thought`, or ADK's `adk_thought`) stay thoughts; A2A data parts that only mirror the
 * remote's own tool calls (ADK marks them `adk_type`) are not part of its answer.
 */

export { dataPart, textPart, toA2aParts } from '../a2a-parts.js';

/** An A2A user message on the given context and task ('' = let the remote choose). */
export function userMessage(
  parts: A2aPart[],
  ids: { contextId?: string | undefined; taskId?: string | undefined },
): Message {
  return {
    messageId: randomUUID(),
    contextId: ids.contextId ?? '',
    taskId: ids.taskId ?? '',
    role: Role.ROLE_USER,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** What a list of A2A parts says, sorted for an answer: its text, its thoughts, its data, its files. */
export interface ReadParts {
  text: string;
  thought: string;
  data: unknown[];
  /** Files as Troupe parts: inline bytes, or a text line naming a linked file. */
  files: Part[];
}

export function readParts(parts: readonly A2aPart[]): ReadParts {
  const read: ReadParts = { text: '', thought: '', data: [], files: [] };
  for (const part of parts) {
    const content = part.content;
    if (!content) continue;
    switch (content.$case) {
      case 'text':
        if (isThought(part)) read.thought += content.value;
        else read.text += content.value;
        break;
      case 'data':
        if (!isRemoteToolTrace(part)) read.data.push(content.value);
        break;
      case 'raw':
        read.files.push(inlinePart(part, content.value));
        break;
      case 'url':
        read.files.push({ text: `[file${part.filename ? ` ${part.filename}` : ''}: ${content.value}]` });
        break;
      default:
        content satisfies never;
    }
  }
  return read;
}

/** The data values of a message's data parts (the remote's own tool traces included). */
export function dataValues(parts: readonly A2aPart[]): unknown[] {
  const values: unknown[] = [];
  for (const part of parts) if (part.content?.$case === 'data') values.push(part.content.value);
  return values;
}

function isThought(part: A2aPart): boolean {
  const meta = part.metadata;
  return meta?.thought === true || meta?.adk_thought === true;
}

function isRemoteToolTrace(part: A2aPart): boolean {
  return typeof part.metadata?.adk_type === 'string';
}

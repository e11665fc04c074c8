import type { Content } from '../events/content.js';
import { contentText } from '../events/content.js';

/** The text that stands for a structured input: its `request` when that is the only field, else JSON. */
export function inputToText(input: Record<string, unknown>, inputKey?: string): string {
  if (inputKey !== undefined) {
    const value = input[inputKey];
    return typeof value === 'string' ? value : JSON.stringify(value ?? null);
  }
  const keys = Object.keys(input);
  if (keys.length === 1 && keys[0] === 'request' && typeof input.request === 'string') return input.request;
  return JSON.stringify(input);
}

/** The structured input a plain user message stands for. */
export function inputFromContent(content: Content | undefined): Record<string, unknown> {
  return { request: contentText(content) };
}

import type { InterruptInfo } from '@troupe/core';
import { isInputRequest } from '../adk-input.js';
import { invalid } from './invalid.js';

/** Words that approve a confirmation, and words that reject one (any case, trailing punctuation ignored). */
const YES: ReadonlySet<string> = new Set(['y', 'yes', 'ok', 'okay', 'approve', 'approved', 'allow', 'confirm', 'true']);
const NO: ReadonlySet<string> = new Set([
  'n',
  'no',
  'reject',
  'rejected',
  'deny',
  'denied',
  'decline',
  'cancel',
  'false',
]);

/**
 * The answer a chat message's text gives to the one question a session waits for, as
 * `runner.resume` takes it:
 * - a confirmation: yes or no (`yes`, `y`, `ok`, `approve`, ... / `no`, `n`, `reject`, `deny`,
 *   ...); anything else is refused (400) with nothing stored, since guessing could run a tool the
 *   user did not approve;
 * - a tool's request for input: the text, or the JSON value it holds when the request has a
 *   `responseSchema` for something other than a string (`42`, `{"date": "2026-05-01"}`); the
 *   runner holds it to the schema;
 * - a workflow's `RequestInput`: the text as it is (SPEC §17.1: plain text is passed as it is).
 * `param` names the message's content for the refusal.
 */
export function textAnswer(interrupt: InterruptInfo, text: string, param: string): unknown {
  if (interrupt.kind === 'confirmation') {
    const word = text
      .trim()
      .replace(/[.!]+$/, '')
      .toLowerCase();
    if (YES.has(word)) return true;
    if (NO.has(word)) return false;
    throw invalid(
      param,
      `the session waits for the user to allow or refuse tool '${interrupt.toolName}' (interrupt '${interrupt.id}'), and ${JSON.stringify(text.length > 60 ? `${text.slice(0, 60)}…` : text)} is neither yes nor no. Answer yes or no; nothing was stored`,
    );
  }
  const schema = interrupt.responseSchema;
  if (isInputRequest(interrupt) || !schema || schema.type === 'string') return text;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

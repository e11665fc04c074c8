import { ConfigurationError, InputValidationError } from '../errors.js';
import { findForbiddenKey } from '../utils/forbidden-keys.js';

/** The checks of a run's or a resume's arguments that come before anything is claimed or stored. */

/** Refuses a run's input (or a resume's responses) holding a prototype-polluting key at any depth. */
export function refuseForbiddenKeys(value: unknown, name: 'input' | 'responses'): void {
  const found = findForbiddenKey(value, name);
  if (found) {
    throw new InputValidationError(
      `The run's ${name} holds the key '${found.key}' at ${found.path}: '__proto__', 'constructor' and 'prototype' are refused at any depth, since merging them could pollute object prototypes. Rename that key; nothing was run or stored.`,
    );
  }
}

/** What a caller-chosen invocation id may be: 1–128 characters of `A-Za-z0-9._:-`. */
export const INVOCATION_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

export function checkInvocationId(id: unknown): void {
  if (typeof id !== 'string' || !INVOCATION_ID_PATTERN.test(id)) {
    throw new ConfigurationError(
      `invocationId ${JSON.stringify(id)} is not usable: use 1 to 128 characters of letters, digits, '.', '_', ':' or '-' (e.g. a job id), or leave it out to get a generated one.`,
    );
  }
}

export function checkIds(params: { userId: string; sessionId: string }): { userId: string; sessionId: string } {
  const { userId, sessionId } = params ?? ({} as { userId: string; sessionId: string });
  if (typeof userId !== 'string' || !userId)
    throw new ConfigurationError(`A run needs a userId string; got ${JSON.stringify(userId)}.`);
  if (typeof sessionId !== 'string' || !sessionId) {
    throw new ConfigurationError(
      `A run needs a sessionId string; got ${JSON.stringify(sessionId)}. Create one with runner.sessionService.createSession.`,
    );
  }
  return { userId, sessionId };
}

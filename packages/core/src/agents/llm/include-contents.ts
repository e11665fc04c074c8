import { ConfigurationError } from '../../errors.js';
import type { IncludeContents } from './history.js';
import { jsonText } from '../../utils/json-text.js';

/** Validates an agent's `includeContents` option and answers it frozen (`'default'` when unset). */
export function checkIncludeContents(agentName: string, value: unknown): IncludeContents {
  if (value === undefined || value === 'default' || value === 'none') return value ?? 'default';
  const problem = (detail: string): ConfigurationError =>
    new ConfigurationError(
      `Agent '${agentName}' has includeContents ${jsonText(value)}: ${detail}. Use 'default', 'none', or an object such as { lastTurns: 5 } or { maxTokens: 8000 } (or both).`,
    );
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw problem('it is neither a known mode nor a window object');
  const window = value as Record<string, unknown>;
  for (const key of Object.keys(window)) {
    if (key !== 'lastTurns' && key !== 'maxTokens')
      throw problem(`'${key}' is not a window setting (only lastTurns and maxTokens are)`);
  }
  const { lastTurns, maxTokens } = window;
  if (lastTurns === undefined && maxTokens === undefined) throw problem('a window needs lastTurns, maxTokens or both');
  if (lastTurns !== undefined && !(Number.isInteger(lastTurns) && (lastTurns as number) >= 0)) {
    throw problem(
      `lastTurns must be a whole number of at least 0 (0 keeps only the current turn); got ${JSON.stringify(lastTurns)}`,
    );
  }
  if (maxTokens !== undefined && !(Number.isInteger(maxTokens) && (maxTokens as number) >= 1)) {
    throw problem(`maxTokens must be a whole number of at least 1; got ${JSON.stringify(maxTokens)}`);
  }
  return Object.freeze({
    ...(lastTurns !== undefined ? { lastTurns: lastTurns as number } : {}),
    ...(maxTokens !== undefined ? { maxTokens: maxTokens as number } : {}),
  });
}

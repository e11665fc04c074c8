import { createHash } from 'node:crypto';
import { ConfigurationError } from '../errors.js';

/**
 * Bearer-token auth as Troupe's servers take it (`createApp`'s and `a2aApp`'s `auth`), so one
 * configuration serves both: each token stands for one user id, or for `'*'` (an admin).
 */
export type TokenAuthOptions =
  | {
      /** Token → user id (or `'*'`). */
      tokens: Readonly<Record<string, string>>;
    }
  | {
      /** Returns the token's user id (or `'*'`), or undefined to refuse it. */
      verify(token: string): string | undefined | Promise<string | undefined>;
    };

/** A token's user id (or `'*'`), or undefined for a token nobody was given. */
export type TokenVerifier = (token: string) => string | undefined | Promise<string | undefined>;

/**
 * The verifier of an `auth` option; an unusable option throws `ConfigurationError` naming `option`
 * (e.g. `"a2aApp's auth"`), the value and the fix.
 */
export function tokenVerifier(options: TokenAuthOptions, option = 'auth'): TokenVerifier {
  if (typeof options !== 'object' || options === null)
    throw new ConfigurationError(`${option} must be { tokens } or { verify }; got ${String(options)}.`);
  if ('verify' in options) {
    if (typeof options.verify !== 'function')
      throw new ConfigurationError(
        `${option}.verify must be a function (token) => userId | '*' | undefined; got ${typeof options.verify}.`,
      );
    return (token) => options.verify(token);
  }
  const tokens = (options as { tokens?: unknown }).tokens;
  if (typeof tokens !== 'object' || tokens === null || Array.isArray(tokens) || Object.keys(tokens).length === 0) {
    throw new ConfigurationError(
      `${option}.tokens must map at least one token to a user id (or '*' for admin), e.g. { tokens: { 'secret': 'alice' } }; got ${JSON.stringify(tokens)}.`,
    );
  }
  // Keyed by the token's hash so that looking a token up does not compare secrets character by character.
  const byHash = new Map<string, string>();
  for (const [token, userId] of Object.entries(tokens as Record<string, unknown>)) {
    if (token.length === 0 || /\s/.test(token))
      throw new ConfigurationError(
        `${option}.tokens has an empty token or one with whitespace; tokens are sent as "Bearer <token>" and cannot contain spaces.`,
      );
    if (typeof userId !== 'string' || userId.length === 0) {
      throw new ConfigurationError(
        `${option}.tokens maps a token to ${JSON.stringify(userId)}; map each token to a user id string, or '*' for admin.`,
      );
    }
    byHash.set(hash(token), userId);
  }
  return (token) => byHash.get(hash(token));
}

function hash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

import { createHash } from 'node:crypto';
import { ConfigurationError } from '@troupe/core';
import { HttpError } from './http-error.js';

/** The user id a token grants that may touch every user's sessions. */
export const ADMIN = '*';

/**
 * Who may call the API. Every request then needs `Authorization: Bearer <token>`; the token
 * stands for one user id, whose sessions are the only ones it may read, run, resume or delete,
 * or for `'*'` (an admin, any user).
 *
 * @example
 * createApp({ apps, auth: { tokens: { 'alice-secret': 'alice', 'ops-secret': '*' } } });
 * createApp({ apps, auth: { verify: async (token) => (await lookUp(token))?.userId } });
 */
export type AuthOptions =
  | {
      /** Token → user id (or `'*'`). */
      tokens: Readonly<Record<string, string>>;
    }
  | {
      /** Returns the token's user id (or `'*'`), or undefined to refuse it. */
      verify(token: string): string | undefined | Promise<string | undefined>;
    };

/** Turns an `Authorization` header into the user id the request acts as. */
export class Authenticator {
  /** False when no auth is configured: every request acts as admin (loopback only, see `serve`). */
  readonly enabled: boolean;
  private readonly verify: ((token: string) => string | undefined | Promise<string | undefined>) | undefined;

  constructor(options: AuthOptions | undefined) {
    this.enabled = options !== undefined;
    this.verify = options === undefined ? undefined : verifierOf(options);
  }

  /** The user id (or {@link ADMIN}) of a request; a missing or unknown token is a 401. */
  async principalOf(authorization: string | undefined): Promise<string> {
    if (!this.verify) return ADMIN;
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '');
    if (!match) {
      throw new HttpError(401, 'UNAUTHORIZED', "This server requires a token: send the header 'Authorization: Bearer <token>'.");
    }
    const userId = await this.verify(match[1]!);
    if (typeof userId !== 'string' || userId === '') throw new HttpError(401, 'UNAUTHORIZED', 'The bearer token was not accepted. Check the token the server was configured with.');
    return userId;
  }
}

/** A request acting as `principal` may touch `userId`'s sessions only if it is that user or an admin; otherwise 403. */
export function assertMayAccess(principal: string, userId: string): void {
  if (principal === ADMIN || principal === userId) return;
  throw new HttpError(403, 'FORBIDDEN', `The token of user '${principal}' cannot access the sessions of user '${userId}'. Use that user's token, or an admin token ('*').`);
}

function verifierOf(options: AuthOptions): (token: string) => string | undefined | Promise<string | undefined> {
  if ('verify' in options) {
    if (typeof options.verify !== 'function') throw new ConfigurationError(`auth.verify must be a function (token) => userId | '*' | undefined; got ${typeof options.verify}.`);
    return (token) => options.verify(token);
  }
  const tokens = (options as { tokens?: unknown }).tokens;
  if (typeof tokens !== 'object' || tokens === null || Array.isArray(tokens) || Object.keys(tokens).length === 0) {
    throw new ConfigurationError(`auth.tokens must map at least one token to a user id (or '*' for admin), e.g. { tokens: { 'secret': 'alice' } }; got ${JSON.stringify(tokens)}.`);
  }
  // Keyed by the token's hash so that looking a token up does not compare secrets character by character.
  const byHash = new Map<string, string>();
  for (const [token, userId] of Object.entries(tokens as Record<string, unknown>)) {
    if (token.length === 0 || /\s/.test(token)) throw new ConfigurationError('auth.tokens has an empty token or one with whitespace; tokens are sent as "Bearer <token>" and cannot contain spaces.');
    if (typeof userId !== 'string' || userId.length === 0) {
      throw new ConfigurationError(`auth.tokens maps a token to ${JSON.stringify(userId)}; map each token to a user id string, or '*' for admin.`);
    }
    byHash.set(hash(token), userId);
  }
  return (token) => byHash.get(hash(token));
}

function hash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

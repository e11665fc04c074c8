import { createHash } from 'node:crypto';
import { ConfigurationError } from '@troupe/core';

/**
 * Who may call the A2A endpoint: the same shape as `createApp`'s `auth` in `@troupe/server`, so one
 * configuration serves both. Each token stands for one user id, or for `'*'` (an admin, which acts
 * as `defaultUserId` here: A2A requests name no user of their own).
 *
 * @example
 * a2aApp(agent, { baseUrl, auth: { tokens: { 'alice-secret': 'alice', 'bob-secret': 'bob' } } });
 * a2aApp(agent, { baseUrl, auth: { verify: async (token) => (await lookUp(token))?.userId } });
 */
export type A2aAuthOptions =
  | {
      /** Token → user id (or `'*'`). */
      tokens: Readonly<Record<string, string>>;
    }
  | {
      /** Returns the token's user id (or `'*'`), or undefined to refuse it. */
      verify(token: string): string | undefined | Promise<string | undefined>;
    };

/** A request the endpoint refuses before reading it: no token, or one it does not know. */
export class UnauthorizedError extends Error {}

type Verify = (token: string) => string | undefined | Promise<string | undefined>;

/** Turns an `Authorization` header into the user id the request acts as. */
export class A2aAuthenticator {
  private readonly verify: Verify | undefined;

  constructor(
    options: A2aAuthOptions | undefined,
    private readonly defaultUserId: string,
  ) {
    this.verify = options === undefined ? undefined : verifierOf(options);
  }

  /** True when requests must carry a token. */
  get enabled(): boolean {
    return this.verify !== undefined;
  }

  /** The user id of a request; throws {@link UnauthorizedError} for a missing or unknown token. */
  async userOf(authorization: string | undefined): Promise<string> {
    if (!this.verify) return this.defaultUserId;
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '');
    if (!match) throw new UnauthorizedError("This A2A endpoint requires a token: send the header 'Authorization: Bearer <token>'.");
    const userId = await this.verify(match[1]!);
    if (typeof userId !== 'string' || userId === '') throw new UnauthorizedError('The bearer token was not accepted. Check the token the server was configured with.');
    return userId === '*' ? this.defaultUserId : userId;
  }
}

/** Rejects an unusable `auth` option with the value and the fix. */
export function checkAuthOptions(options: A2aAuthOptions | undefined): void {
  if (options !== undefined) verifierOf(options);
}

function verifierOf(options: A2aAuthOptions): Verify {
  if (typeof options !== 'object' || options === null) throw new ConfigurationError(`a2aApp's auth must be { tokens } or { verify }; got ${String(options)}.`);
  if ('verify' in options) {
    if (typeof options.verify !== 'function') throw new ConfigurationError(`a2aApp's auth.verify must be a function (token) => userId | '*' | undefined; got ${typeof options.verify}.`);
    return (token) => options.verify(token);
  }
  const tokens = (options as { tokens?: unknown }).tokens;
  if (typeof tokens !== 'object' || tokens === null || Array.isArray(tokens) || Object.keys(tokens).length === 0) {
    throw new ConfigurationError(`a2aApp's auth.tokens must map at least one token to a user id (or '*' for admin), e.g. { tokens: { 'secret': 'alice' } }; got ${JSON.stringify(tokens)}.`);
  }
  // Keyed by the token's hash so that looking a token up does not compare secrets character by character.
  const byHash = new Map<string, string>();
  for (const [token, userId] of Object.entries(tokens as Record<string, unknown>)) {
    if (token.length === 0 || /\s/.test(token)) throw new ConfigurationError('a2aApp\'s auth.tokens has an empty token or one with whitespace; tokens are sent as "Bearer <token>" and cannot contain spaces.');
    if (typeof userId !== 'string' || userId.length === 0) {
      throw new ConfigurationError(`a2aApp's auth.tokens maps a token to ${JSON.stringify(userId)}; map each token to a user id string, or '*' for admin.`);
    }
    byHash.set(hash(token), userId);
  }
  return (token) => byHash.get(hash(token));
}

function hash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

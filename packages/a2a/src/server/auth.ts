import { type TokenAuthOptions, type TokenVerifier, tokenVerifier } from '@troupe/core/hosting';

/**
 * Who may call the A2A endpoint: the same shape as `createApp`'s `auth` in `@troupe/server`, so one
 * configuration serves both. Each token stands for one user id, or for `'*'` (an admin, which acts
 * as `defaultUserId` here: A2A requests name no user of their own).
 *
 * @example
 * a2aApp(agent, { baseUrl, auth: { tokens: { 'alice-secret': 'alice', 'bob-secret': 'bob' } } });
 * a2aApp(agent, { baseUrl, auth: { verify: async (token) => (await lookUp(token))?.userId } });
 */
export type A2aAuthOptions = TokenAuthOptions;

/** A request the endpoint refuses before reading it: no token, or one it does not know. */
export class UnauthorizedError extends Error {}

/** Turns an `Authorization` header into the user id the request acts as. */
export class A2aAuthenticator {
  private readonly verify: TokenVerifier | undefined;

  constructor(
    options: A2aAuthOptions | undefined,
    private readonly defaultUserId: string,
  ) {
    this.verify = options === undefined ? undefined : tokenVerifier(options, "a2aApp's auth");
  }

  /** True when requests must carry a token. */
  get enabled(): boolean {
    return this.verify !== undefined;
  }

  /** The user id of a request; throws {@link UnauthorizedError} for a missing or unknown token. */
  async userOf(authorization: string | undefined): Promise<string> {
    if (!this.verify) return this.defaultUserId;
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '');
    if (!match)
      throw new UnauthorizedError(
        "This A2A endpoint requires a token: send the header 'Authorization: Bearer <token>'.",
      );
    const userId = await this.verify(match[1]!);
    if (typeof userId !== 'string' || userId === '')
      throw new UnauthorizedError('The bearer token was not accepted. Check the token the server was configured with.');
    return userId === '*' ? this.defaultUserId : userId;
  }
}

/** Rejects an unusable `auth` option with the value and the fix. */
export function checkAuthOptions(options: A2aAuthOptions | undefined): void {
  if (options !== undefined) tokenVerifier(options, "a2aApp's auth");
}

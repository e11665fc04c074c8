import { type TokenAuthOptions, type TokenVerifier, tokenVerifier } from '@troupe/core/hosting';
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
export type AuthOptions = TokenAuthOptions;

/** Turns an `Authorization` header into the user id the request acts as. */
export class Authenticator {
  /** False when no auth is configured: every request acts as admin (loopback only, see `serve`). */
  readonly enabled: boolean;
  private readonly verify: TokenVerifier | undefined;

  constructor(options: AuthOptions | undefined) {
    this.enabled = options !== undefined;
    this.verify = options === undefined ? undefined : tokenVerifier(options);
  }

  /** The user id (or {@link ADMIN}) of a request; a missing or unknown token is a 401. */
  async principalOf(authorization: string | undefined): Promise<string> {
    if (!this.verify) return ADMIN;
    const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization ?? '');
    if (!match) {
      throw new HttpError(
        401,
        'UNAUTHORIZED',
        "This server requires a token: send the header 'Authorization: Bearer <token>'.",
      );
    }
    const userId = await this.verify(match[1]!);
    if (typeof userId !== 'string' || userId === '')
      throw new HttpError(
        401,
        'UNAUTHORIZED',
        'The bearer token was not accepted. Check the token the server was configured with.',
      );
    return userId;
  }
}

/** A request acting as `principal` may touch `userId`'s sessions only if it is that user or an admin; otherwise 403. */
export function assertMayAccess(principal: string, userId: string): void {
  if (principal === ADMIN || principal === userId) return;
  throw new HttpError(
    403,
    'FORBIDDEN',
    `The token of user '${principal}' cannot access the sessions of user '${userId}'. Use that user's token, or an admin token ('*').`,
  );
}

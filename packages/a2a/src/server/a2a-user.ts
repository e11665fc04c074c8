import type { ServerCallContext, User } from '@a2a-js/sdk/server';

/** The caller of a request, as the SDK's call context carries it: the Troupe user id its token stands for. */
export class A2aUser implements User {
  constructor(readonly userName: string) {}

  get isAuthenticated(): boolean {
    return true;
  }
}

/** The user id a request acts as (set by the JSON-RPC route, which authenticated it). */
export function userIdOf(context: ServerCallContext): string {
  const user = context.user;
  // The route always sets an A2aUser; anything else is a wiring bug, not a client's doing.
  if (!(user instanceof A2aUser))
    throw new Error(
      "The A2A request reached the handler without its user; it must come through a2aApp's JSON-RPC route.",
    );
  return user.userName;
}

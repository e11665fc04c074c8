import { AgentTreeError } from '../errors.js';

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/** Throws unless `name` is a JavaScript identifier other than `user`. */
export function assertValidAgentName(name: unknown): asserts name is string {
  if (typeof name !== 'string' || !IDENTIFIER.test(name)) {
    throw new AgentTreeError(
      `Agent name ${JSON.stringify(name)} is not a valid identifier. Use letters, digits, '_' or '$', not starting with a digit (e.g. 'Booker' or 'web_search').`,
    );
  }
  if (name === 'user') {
    throw new AgentTreeError(
      `Agent name 'user' is reserved for the end user's messages. Choose another name, such as 'UserProxy'.`,
    );
  }
}

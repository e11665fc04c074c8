/**
 * A tool call the server will not run as asked (bad arguments, an unknown or foreign session, an
 * interrupt that is not pending): its message names the thing and the fix, and the call answers
 * it as a tool error (`isError: true`), so the model or person can correct the call. Nothing was
 * stored.
 */
export class CallRefused extends Error {
  override readonly name = 'CallRefused';
}

import { CallbackContext } from '../agents/callback-context.js';
import type { InvocationContext } from '../agents/invocation-context.js';
import type { Event } from '../events/event.js';

/**
 * What a tool receives besides its arguments: state (writes are recorded on the function
 * response event), actions (escalate, transferToAgent, skipSummarization), the call id and the
 * run's abort signal.
 */
export class ToolContext extends CallbackContext {
  constructor(
    invocationContext: InvocationContext,
    /** The id of the function call being answered. */
    readonly functionCallId: string,
    private readonly emit: (event: Event) => Promise<void>,
  ) {
    super(invocationContext);
  }

  /**
   * Streams an event (e.g. from an agent the tool runs) to the caller; resolves once it has been
   * appended to the session.
   */
  emitEvent(event: Event): Promise<void> {
    return this.emit(event);
  }
}

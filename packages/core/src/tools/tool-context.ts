import { CallbackContext } from '../agents/callback-context.js';
import type { InvocationContext } from '../agents/invocation-context.js';
import type { Event } from '../events/event.js';
import { customEventOf } from '../events/custom-event.js';
import { ToolInterrupt, ToolRejected } from '../interrupts/signals.js';
import type { SearchMemoryResponse } from '../memory/memory-service.js';
import { searchSessionMemory, type MemorySearchOptions } from '../memory/search-memory.js';

/** The answer to a confirmation request. */
export interface ToolConfirmation {
  confirmed: boolean;
  payload?: unknown;
}

/**
 * What a tool receives besides its arguments: state (writes are recorded on the function
 * response event), actions (escalate, transferToAgent, skipSummarization), the call id, the
 * run's abort signal, and the means to pause for a human.
 */
export class ToolContext extends CallbackContext {
  private requests = 0;

  constructor(
    invocationContext: InvocationContext,
    /** The id of the function call being answered. */
    readonly functionCallId: string,
    private readonly sink: (event: Event) => Promise<void>,
    /**
     * When this call is being resumed: the index in the session's events where the paused call's
     * own events start. Internal.
     * @internal
     */
    readonly resumeFrom?: number,
  ) {
    super(invocationContext);
  }

  /**
   * A key for this function call that stays the same when a crash-resume runs the call again
   * (`<invocationId>:<functionCallId>`): pass it to external systems (payments, emails) so a
   * repeated call does not repeat the effect. Calls in flight at a crash run again (at least once).
   */
  get idempotencyKey(): string {
    return `${this.invocationContext.invocationId}:${this.functionCallId}`;
  }

  /**
   * Streams an event (e.g. from an agent the tool runs) to the caller; resolves once it has been
   * appended to the session.
   */
  emitEvent(event: Event): Promise<void> {
    return this.sink(event);
  }

  /**
   * Stores a custom event (`event.customEvent = { name, data }`) authored by the calling agent, in
   * order with the call's other events, and streams it to every client (a tool's progress); a
   * model never sees it. Resolves once it is stored.
   * @example
   * await ctx.emit('search.progress', { searched: 40, of: 100 });
   */
  override async emit(name: string, data?: unknown): Promise<void> {
    await this.sink(customEventOf(name, data, `ctx.emit('${String(name)}') in tool call ${this.functionCallId}`));
  }

  /**
   * Searches the long-term memory of this session's user in this app (ADK's `search_memory`): what
   * they said in earlier sessions that were added to memory. Needs `Runner({ memoryService })`.
   * @example
   * const { memories } = await ctx.searchMemory('favourite city');
   * const near = await ctx.searchMemory('which town do I like?', { mode: 'vector', limit: 3 });
   */
  searchMemory(query: string, options: MemorySearchOptions = {}): Promise<SearchMemoryResponse> {
    return searchSessionMemory(
      this.invocationContext,
      query,
      `ctx.searchMemory() in a tool of agent '${this.agentName}'`,
      options,
    );
  }

  /**
   * Asks a human to approve what the tool is about to do. The first time, the run pauses here
   * (status `'interrupted'`); after `runner.resume` with an approval the tool runs again from the
   * start and this call returns the approval. A rejection ends the call without running the tool
   * further, and the model is told it was rejected. Call it before any side effect.
   */
  async requestConfirmation(options: { hint?: string; payload?: unknown } = {}): Promise<ToolConfirmation> {
    const id = this.nextInterruptId();
    const answers = this.invocationContext.shared.answers;
    if (answers.has(id)) {
      const answer = answers.get(id) as ToolConfirmation;
      if (!answer.confirmed) throw new ToolRejected(id, answer.payload);
      return answer;
    }
    throw new ToolInterrupt({ id, kind: 'confirmation', ...defined({ hint: options.hint, payload: options.payload }) });
  }

  /**
   * Asks a human for a value. The first time, the run pauses here; after `runner.resume` with the
   * value (validated against `responseSchema`) the tool runs again and this call returns it.
   */
  async requestInput<T = unknown>(options: {
    message: string;
    payload?: unknown;
    responseSchema?: Record<string, unknown>;
  }): Promise<T> {
    const id = this.nextInterruptId();
    const answers = this.invocationContext.shared.answers;
    if (answers.has(id)) return answers.get(id) as T;
    throw new ToolInterrupt({
      id,
      kind: 'input',
      message: options.message,
      ...defined({ payload: options.payload, responseSchema: options.responseSchema }),
    });
  }

  // Stable: the same request of the same call gets the same id when the call runs again on resume.
  private nextInterruptId(): string {
    const n = this.requests++;
    const base = `${this.invocationContext.path}:${this.functionCallId}`;
    return n === 0 ? base : `${base}:${n + 1}`;
  }
}

function defined<T extends Record<string, unknown>>(fields: T): Partial<T> {
  const out: Partial<T> = {};
  for (const key in fields) if (fields[key] !== undefined) out[key] = fields[key];
  return out;
}

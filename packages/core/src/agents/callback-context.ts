import type { EventActions } from '../events/event.js';
import type { Session } from '../sessions/session.js';
import { State } from '../sessions/state.js';
import type { InvocationContext } from './invocation-context.js';

/** The side effects a callback, tool or function agent may set on its event. */
export type MutableActions = Pick<EventActions, 'escalate' | 'transferToAgent' | 'skipSummarization'>;

/**
 * What agent and model callbacks receive: the state (writes are recorded as a delta on the
 * step's event), actions, and the invocation.
 */
export class CallbackContext {
  /** Current state; `set` records a delta. */
  readonly state: State;
  /** Set `escalate`, `transferToAgent` or `skipSummarization`. */
  readonly actions: MutableActions = {};

  constructor(
    readonly invocationContext: InvocationContext,
    delta: Record<string, unknown> = {},
  ) {
    this.state = new State(invocationContext.session.state, delta);
  }

  get agentName(): string {
    return this.invocationContext.agent.name;
  }

  get invocationId(): string {
    return this.invocationContext.invocationId;
  }

  get session(): Session {
    return this.invocationContext.session;
  }

  get input(): Record<string, unknown> {
    return this.invocationContext.input;
  }

  get abortSignal(): AbortSignal {
    return this.invocationContext.abortSignal;
  }

  /** Throws the run's abort reason once it is cancelled: call it between steps of long work. */
  throwIfAborted(): void {
    this.invocationContext.throwIfAborted();
  }

  /** Merges the recorded state delta and actions into an event's actions. */
  applyTo(actions: EventActions): void {
    if (this.state.hasDelta()) Object.assign(actions.stateDelta, this.state.delta);
    if (this.actions.escalate !== undefined) actions.escalate = this.actions.escalate;
    if (this.actions.transferToAgent !== undefined) actions.transferToAgent = this.actions.transferToAgent;
    if (this.actions.skipSummarization !== undefined) actions.skipSummarization = this.actions.skipSummarization;
  }

  /** True when the callback wrote state or set an action. */
  hasEffects(): boolean {
    return this.state.hasDelta() || Object.keys(this.actions).length > 0;
  }
}

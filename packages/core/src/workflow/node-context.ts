import { CallbackContext } from '../agents/callback-context.js';
import type { InvocationContext } from '../agents/invocation-context.js';
import type { Event, Route } from '../events/event.js';
import { customEventOf } from '../events/custom-event.js';

/** What `ctx.runNode` resolves to (ADK's `NodeResult`). */
export interface NodeResult {
  /** The child's output; undefined when it produced none or paused. */
  output: unknown;
  route?: Route;
  /** The interrupts the child is waiting on; empty when it finished. */
  interruptIds: string[];
}

/** Options of `ctx.runNode`. */
export interface RunNodeOptions {
  /** The child's run id (unique among this node's children); by default `'1'`, `'2'`, … per child name. */
  runId?: string;
}

/** The engine's side of a node's context. Internal. */
export interface NodeHost {
  readonly path: string;
  readonly runId: string;
  readonly attempt: number;
  readonly resumeInputs: Record<string, unknown>;
  /** The history branch an agent run by this node uses (`<wf branch>.<workflow>.<node path>`). */
  readonly branch: string;
  /** When this run resumes: where its own earlier events start in the session. */
  readonly resumeFrom: number | undefined;
  /** Stamps the event as this node's and hands it on; resolves once it is stored. */
  readonly emit: (event: Event) => Promise<void>;
  /** Runs a child of this node durably (see `runChild`). */
  readonly runNode: (node: unknown, input: unknown, options: RunNodeOptions | undefined) => Promise<NodeResult>;
}

/**
 * What a workflow node's function gets (ADK's `NodeContext`): the state (writes go out with the
 * node's next event), `runNode` to run other nodes from code, the answers to its input requests
 * (`resumeInputs`), which try this is (`attemptCount`) and the try's abort signal.
 */
export class NodeContext extends CallbackContext {
  /** @internal */
  readonly host: NodeHost;

  /** @internal */
  constructor(invocationContext: InvocationContext, host: NodeHost) {
    super(invocationContext);
    this.host = host;
  }

  /** The node's path from the workflow (`triage.classify`). */
  get nodePath(): string {
    return this.host.path;
  }

  /** Which run of this node this is. */
  get runId(): string {
    return this.host.runId;
  }

  /** Which try of this run (1-based; above 1 after a retry). */
  get attemptCount(): number {
    return this.host.attempt;
  }

  /** Answers given to input requests of this invocation, by interrupt id. */
  get resumeInputs(): Record<string, unknown> {
    return this.host.resumeInputs;
  }

  /** The invocation context the node runs in (ADK's accessor). */
  getInvocationContext(): InvocationContext {
    return this.invocationContext;
  }

  /**
   * Emits an event as this node's (with the state written so far); resolves once it is stored.
   * An event with `output` does not end the node: the node's output is what it returns.
   * With a name (`ctx.emit('progress', data)`) it stores a custom event instead (see
   * {@link CallbackContext.emit}), which carries no state.
   */
  override emit(event: Event): Promise<void>;
  override emit(name: string, data?: unknown): Promise<void>;
  override async emit(eventOrName: Event | string, data?: unknown): Promise<void> {
    await this.host.emit(
      typeof eventOrName === 'string'
        ? customEventOf(eventOrName, data, `ctx.emit('${eventOrName}') in node '${this.host.path}'`)
        : eventOrName,
    );
  }

  /**
   * Runs another node (a function, agent, tool or node) as a child of this one and resolves with
   * its result. Durable: when this node runs again after a resume, a child that had finished is not
   * run again (its recorded result is returned), and a paused child resumes. A child that pauses
   * resolves with its `interruptIds`; return then to pause this node too.
   *
   * @example
   * const results = await Promise.all(topics.map((t) => ctx.runNode(research, t)));
   */
  runNode(node: unknown, input?: unknown, options?: RunNodeOptions): Promise<NodeResult> {
    return this.host.runNode(node, input, options);
  }
}

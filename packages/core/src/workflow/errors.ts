import { TroupeError } from '../errors.js';

/**
 * A workflow node's input or output does not match its `inputSchema`/`outputSchema` (ADK's name).
 * The run fails with it, stored once, naming the node and the field.
 */
export class NodeSchemaValidationError extends TroupeError {
  /** Which side failed. */
  readonly which: 'input' | 'output';
  /** ADK's name for {@link which}. */
  readonly direction: 'input' | 'output';

  constructor(
    /** The node's path (`workflow.node`). */
    readonly node: string,
    which: 'input' | 'output',
    /** What failed, field by field. */
    readonly detail: string,
  ) {
    super(
      'NODE_SCHEMA',
      `Workflow node '${node}' ${which === 'input' ? 'got an input' : 'produced an output'} that does not match its ${which}Schema: ${detail}.`,
      {
        remedy:
          which === 'input'
            ? 'Make the node before it produce these fields, or change the schema.'
            : 'Make the node return these fields, or change the schema.',
      },
    );
    this.which = which;
    this.direction = which;
  }

  /** ADK's name for {@link node}. */
  get nodeName(): string {
    return this.node;
  }
}

/** A node wrote a state value the workflow's `stateSchema` refuses; nothing was stored. */
export class StateSchemaError extends TroupeError {
  constructor(
    readonly key: string,
    readonly node: string,
    detail: string,
  ) {
    super(
      'STATE_SCHEMA',
      `Workflow node '${node}' wrote state key '${key}' with a value its workflow's stateSchema refuses: ${detail}. Nothing was stored.`,
      { remedy: `Write a value that matches the schema's '${key}', or change the stateSchema.` },
    );
  }
}

/** Two terminal nodes of one workflow run produced an output, so the workflow's output is ambiguous. */
export class WorkflowOutputError extends TroupeError {
  constructor(
    readonly workflow: string,
    readonly nodes: readonly string[],
  ) {
    super(
      'WORKFLOW_OUTPUT',
      `Workflow '${workflow}' has ${nodes.length} terminal nodes that produced an output in one run (${nodes.map((n) => `'${n}'`).join(', ')}); a workflow has at most one output.`,
      { remedy: 'Send them into a JoinNode (its output holds both), or make all but one return nothing.' },
    );
  }
}

/** One try of a node ran longer than its `timeout` and was aborted. */
export class NodeTimeoutError extends TroupeError {
  constructor(
    readonly node: string,
    /** Milliseconds. */
    readonly timeout: number,
  ) {
    super('NODE_TIMEOUT', `Workflow node '${node}' took longer than its timeout of ${timeout} ms and was stopped.`, {
      remedy: "Raise the node's timeout (milliseconds), or make it faster.",
    });
  }

  /** ADK's name for {@link node}. */
  get nodeName(): string {
    return this.node;
  }
}

/** A node failed on its last try; `cause` is that try's error. */
export class NodeFailedError extends TroupeError {
  constructor(
    readonly node: string,
    readonly attemptCount: number,
    readonly error: unknown,
  ) {
    const reason = error instanceof Error ? error.message : String(error);
    super(
      'NODE_FAILED',
      `Workflow node '${node}' failed after ${attemptCount} ${attemptCount === 1 ? 'try' : 'tries'}: ${reason}`,
      { cause: error },
    );
  }
}

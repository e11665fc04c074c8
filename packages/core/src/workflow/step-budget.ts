import { RunLimitError } from '../errors.js';

/**
 * The node runs one workflow run may make (`maxSteps`): its graph's node runs and its nodes'
 * `ctx.runNode` children alike, so neither a cycle nor a loop of `runNode` calls runs unbounded.
 * Runs replayed on resume count again, as they did the first time.
 */
export class StepBudget {
  private used = 0;

  constructor(
    private readonly workflow: string,
    private readonly max: number,
  ) {}

  /** Counts one node run; false when that run is past the budget (then throw {@link exhausted}). */
  spend(): boolean {
    this.used += 1;
    return this.used <= this.max;
  }

  /** The error that stops the run before it runs `node`, past the budget. */
  exhausted(node: string): RunLimitError {
    return new RunLimitError(
      'maxSteps',
      `Workflow '${this.workflow}' ran ${this.max} nodes (its maxSteps) and was stopped before running '${node}'. Raise maxSteps, or give the cycle an exit (a route, or maxIterations on its back-edge).`,
    );
  }
}

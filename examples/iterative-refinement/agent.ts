/**
 * Iterative refinement pattern (LoopAgent).
 *
 * CodeRefinementLoop repeats CodeRefiner -> QualityChecker -> StopChecker. The code and the verdict
 * live in session state (`current_code`, `quality_status`), so each pass builds on the last one.
 * StopChecker is a custom (non-LLM) agent: when the verdict is 'pass' it yields an event with
 * `actions.escalate`, which ends the loop right there; otherwise the loop stops after 5 passes.
 * The loop's last event records why it stopped (`agentState.stopReason`).
 *
 * The file also defines the StatusPoller concept: a loop that polls a (fake) job until its status
 * is 'completed', wrapped in a SequentialAgent whose next step reports the outcome. Escalation
 * ends only the loop; the pipeline carries on. It is exported as `pollThenReport`.
 *
 * Try: npx troupe run examples/iterative-refinement --input "A function that reverses a string"
 */
import {
  BaseAgent,
  FunctionTool,
  LlmAgent,
  LoopAgent,
  SequentialAgent,
  createEvent,
  type BaseAgentOptions,
  type Event,
  type InvocationContext,
} from '@troupe/core';

/** Options of {@link EscalateWhen}. */
export interface EscalateWhenOptions extends BaseAgentOptions {
  /** The state key to look at. */
  key: string;
  /** The value (compared trimmed and case-insensitively) that ends the loop. */
  equals: string;
}

/** A custom agent that escalates (ends the enclosing loop) once `state[key]` equals a value. */
export class EscalateWhen extends BaseAgent {
  readonly key: string;
  readonly equals: string;

  constructor(options: EscalateWhenOptions) {
    super(options);
    this.key = options.key;
    this.equals = options.equals.toLowerCase();
  }

  protected override async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, undefined> {
    const value = ctx.session.state[this.key];
    const done = typeof value === 'string' && value.trim().toLowerCase() === this.equals;
    yield createEvent({ actions: { escalate: done } });
  }
}

export const codeRefiner = new LlmAgent({
  name: 'CodeRefiner',
  description: 'Writes and improves code.',
  instruction:
    "Write or improve JavaScript code that meets the user's requirements.\n" +
    'Current code (empty on the first pass):\n{current_code?}\n' +
    'Last review: {quality_status?}\n' +
    'Reply with the code only.',
  outputKey: 'current_code',
});

export const qualityChecker = new LlmAgent({
  name: 'QualityChecker',
  description: 'Checks code against the requirements.',
  instruction:
    "Evaluate this code against the user's requirements:\n{current_code}\nReply with exactly 'pass' or 'fail'.",
  outputKey: 'quality_status',
});

export const stopChecker = new EscalateWhen({
  name: 'StopChecker',
  description: "Ends the loop when quality_status is 'pass'.",
  key: 'quality_status',
  equals: 'pass',
});

export const rootAgent = new LoopAgent({
  name: 'CodeRefinementLoop',
  description: 'Refines code until it passes review, at most 5 times.',
  maxIterations: 5,
  subAgents: [codeRefiner, qualityChecker, stopChecker],
});

// The StatusPoller concept. The fake job is done on the third check; the count lives in state.
export const JOB_DONE_AFTER_CHECKS = 3;

export const checkJobStatus = new FunctionTool({
  name: 'check_job_status',
  description: 'Checks the status of the processing job and records it in state.',
  execute: (_args, ctx) => {
    const polls = ctx.state.get<number>('polls', 0) + 1;
    const status = polls >= JOB_DONE_AFTER_CHECKS ? 'completed' : 'pending';
    ctx.state.set('polls', polls);
    ctx.state.set('status', status);
    return { status, polls };
  },
});

export const processingStep = new LlmAgent({
  name: 'ProcessingStep',
  description: 'Checks on the processing job.',
  instruction: 'Check the job with check_job_status, then report its status in one short sentence.',
  tools: [checkJobStatus],
});

export const statusPoller = new LoopAgent({
  name: 'StatusPoller',
  maxIterations: 10,
  subAgents: [processingStep, new EscalateWhen({ name: 'Checker', key: 'status', equals: 'completed' })],
});

export const reportStatus = new LlmAgent({
  name: 'ReportStatus',
  description: 'Tells the user how the job ended.',
  instruction: "The job ended with status '{status}' after {polls} checks. Tell the user in one sentence.",
});

export const pollThenReport = new SequentialAgent({
  name: 'PollThenReport',
  description: 'Polls the job until it completes, then reports.',
  subAgents: [statusPoller, reportStatus],
});

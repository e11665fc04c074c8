import { asAgentState, type TeamProgress as TeamProgressRecord } from '../progress.js';
import type { Event } from '../../events/event.js';
import { ConfigurationError, InputValidationError, OutputValidationError, ReflectionError } from '../../errors.js';
import { validate, type Schema } from '../../utils/schema.js';
import { runConcurrently } from '../../utils/run-concurrently.js';
import { BaseAgent, type BaseAgentOptions } from '../base-agent.js';
import type { InvocationContext } from '../invocation-context.js';
import { asObject, outputKeyOf, runUnit } from './skill-unit.js';
import { readProgress, roundKey, unitKey, type TeamProgress } from './team-progress.js';
import type { AgentKind } from '../agent-outline.js';

/** Review-and-revise settings of a {@link TeamAgent}. */
export interface ReflectionOptions {
  /** Judges the team's output; it runs on `{ ...input, ...teamOutput }`. */
  reviewer: BaseAgent;
  /** A field of the reviewer's output that is truthy when approved, or a function of that output. */
  isApproved: string | ((output: Record<string, unknown>) => boolean | Promise<boolean>);
  /** Rounds (team run + review) before giving up. @default 3 */
  maxIterations?: number;
  /** After the last round, return the last output instead of failing. @default false */
  returnLastOnMaxIterations?: boolean;
  /** The message of the ReflectionError thrown when nothing was approved. */
  customErrorMessage?: string;
}

/** Options of {@link TeamAgent}. */
export interface TeamAgentOptions extends Omit<BaseAgentOptions, 'subAgents'> {
  /** The agents the team orchestrates. At least one. */
  skills: readonly BaseAgent[];
  /** `'sequential'`: each skill gets the input plus earlier outputs. `'parallel'`: all at once. @default 'sequential' */
  mode?: 'sequential' | 'parallel';
  /** Checked on entry, with messages naming the field. */
  inputSchema?: Schema;
  /** Checked on exit, with messages naming the field. */
  outputSchema?: Schema;
  /** Stores the team's output in `state[outputKey]`. */
  outputKey?: string;
  /** An input field holding an array: the team runs once per item. */
  iterateOn?: string;
  /** With `iterateOn`: how many items run at once. @default 1 */
  concurrency?: number;
  /** With `iterateOn`: carry each item's result into the next item (needs concurrency 1). @default false */
  iterateWithPreviousOutput?: boolean;
  /** In sequential mode: the output merges every skill's output, not just the last. @default false */
  includeAllStepsOutput?: boolean;
  reflection?: ReflectionOptions;
}

/**
 * Orchestrates a set of agents ("skills") on a structured task (seed 002, AIGNE's TeamAgent):
 * sequentially or in parallel, optionally once per item of an input array, optionally reviewed and
 * revised by a reviewer. Skills work on the team's input, not on the chat history; their events
 * stream through on branches `<team>.<skill>` (`<team>.<skill>[i]` per item).
 *
 * @example
 * const team = new TeamAgent({ name: 'Research', skills: [researcher, summarizer] });
 * // researcher gets { topic }, summarizer gets { topic, research }; the output is summarizer's.
 */
export class TeamAgent extends BaseAgent {
  readonly skills: readonly BaseAgent[];
  readonly mode: 'sequential' | 'parallel';
  override readonly inputSchema: Schema | undefined;
  override readonly outputSchema: Schema | undefined;
  readonly outputKey: string | undefined;
  readonly iterateOn: string | undefined;
  readonly concurrency: number;
  readonly iterateWithPreviousOutput: boolean;
  readonly includeAllStepsOutput: boolean;
  readonly reflection:
    | (Required<Omit<ReflectionOptions, 'customErrorMessage'>> & Pick<ReflectionOptions, 'customErrorMessage'>)
    | undefined;

  constructor(options: TeamAgentOptions) {
    const skills = options?.skills;
    if (!Array.isArray(skills) || skills.length === 0) {
      throw new ConfigurationError(
        `TeamAgent '${options?.name}' needs at least one skill; got ${Array.isArray(skills) ? 'an empty list' : String(skills)}. Pass skills: [agentA, agentB].`,
      );
    }
    const reviewer = options.reflection?.reviewer;
    super({ ...options, subAgents: reviewer ? [...skills, reviewer] : skills });
    const name = options.name;
    const mode = options.mode ?? 'sequential';
    if (mode !== 'sequential' && mode !== 'parallel') {
      throw new ConfigurationError(
        `TeamAgent '${name}' has mode ${JSON.stringify(options.mode)}; use 'sequential' or 'parallel'.`,
      );
    }
    const concurrency = options.concurrency ?? 1;
    if (!Number.isInteger(concurrency) || concurrency < 1) {
      throw new ConfigurationError(
        `TeamAgent '${name}' has concurrency ${JSON.stringify(options.concurrency)}; use a whole number of at least 1.`,
      );
    }
    if (options.iterateWithPreviousOutput && concurrency !== 1) {
      throw new ConfigurationError(
        `TeamAgent '${name}' has iterateWithPreviousOutput: true with concurrency ${concurrency}; carrying each result into the next item needs concurrency 1. Set concurrency to 1 or turn iterateWithPreviousOutput off.`,
      );
    }
    if (options.iterateWithPreviousOutput && !options.iterateOn) {
      throw new ConfigurationError(
        `TeamAgent '${name}' has iterateWithPreviousOutput without iterateOn; name the input array field in iterateOn.`,
      );
    }
    const reflection = options.reflection;
    if (reflection) {
      if (!(reflection.reviewer instanceof BaseAgent))
        throw new ConfigurationError(`TeamAgent '${name}' reflection needs a reviewer agent.`);
      if (typeof reflection.isApproved !== 'string' && typeof reflection.isApproved !== 'function') {
        throw new ConfigurationError(
          `TeamAgent '${name}' reflection.isApproved must be a field name of the reviewer's output or a function; got ${typeof reflection.isApproved}.`,
        );
      }
      const max = reflection.maxIterations ?? 3;
      if (!Number.isInteger(max) || max < 1)
        throw new ConfigurationError(
          `TeamAgent '${name}' reflection.maxIterations is ${JSON.stringify(reflection.maxIterations)}; use a whole number of at least 1.`,
        );
    }
    this.skills = Object.freeze([...skills]);
    this.mode = mode;
    this.inputSchema = options.inputSchema;
    this.outputSchema = options.outputSchema;
    this.outputKey = options.outputKey;
    this.iterateOn = options.iterateOn;
    this.concurrency = concurrency;
    this.iterateWithPreviousOutput = options.iterateWithPreviousOutput ?? false;
    this.includeAllStepsOutput = options.includeAllStepsOutput ?? false;
    this.reflection = reflection && {
      reviewer: reflection.reviewer,
      isApproved: reflection.isApproved,
      maxIterations: reflection.maxIterations ?? 3,
      returnLastOnMaxIterations: reflection.returnLastOnMaxIterations ?? false,
      customErrorMessage: reflection.customErrorMessage,
    };
  }

  override get kind(): AgentKind {
    return 'team';
  }

  override get resumable(): boolean {
    return true;
  }

  /** Its skills get the input (and `iterateOn` reads its items from it). */
  override get runsOnInput(): boolean {
    return true;
  }

  protected async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, undefined> {
    const progress = readProgress(ctx, this.name);
    if (progress.finished) return;
    let input = ctx.input;
    if (this.inputSchema) {
      const checked = await validate(this.inputSchema, input);
      if (!checked.ok)
        throw new InputValidationError(
          `TeamAgent '${this.name}' got an input that does not match its inputSchema: ${checked.message}. Pass an input with these fields.`,
        );
      input = checked.value as Record<string, unknown>;
    }
    const run = new TeamRun(this, ctx, progress);
    const output = this.iterateOn
      ? yield* run.iterate(input, this.iterateOn)
      : yield* run.reflect(input, undefined, ctx.abortSignal);
    if (run.paused || output === undefined) return;
    if (this.outputSchema) {
      const checked = await validate(this.outputSchema, output);
      if (!checked.ok)
        throw new OutputValidationError(
          `TeamAgent '${this.name}' produced an output that does not match its outputSchema: ${checked.message}.`,
        );
    }
    const final = this.createEvent(ctx, {
      output,
      actions: { endOfAgent: true, agentState: asAgentState({ finished: true }) },
    });
    if (this.outputKey !== undefined) final.actions.stateDelta[this.outputKey] = output;
    yield final;
  }

  /** @internal */
  progressEvent(ctx: InvocationContext, record: TeamProgressRecord): Event {
    return this.createEvent(ctx, { actions: { agentState: asAgentState(record) } });
  }
}

type Output = Record<string, unknown>;

/** One run of a team: the rounds, items and skill runs, and whether something paused. */
class TeamRun {
  paused = false;

  constructor(
    private readonly team: TeamAgent,
    private readonly ctx: InvocationContext,
    private readonly progress: TeamProgress,
  ) {}

  async *iterate(input: Output, field: string): AsyncGenerator<Event, Output | undefined, undefined> {
    const raw = input[field];
    const items: unknown[] = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
    const itemFields = (item: unknown): Output => (isObject(item) ? item : { [field]: item });
    if (this.team.iterateWithPreviousOutput) {
      const current = [...items];
      const results: Output[] = [];
      for (let i = 0; i < items.length; i++) {
        // Item i+1 runs on { ...input, ...result_i, ...item_(i+1) }, with result_i also merged into item i.
        const data = { ...input, [field]: [...current], ...(i > 0 ? results[i - 1] : {}), ...itemFields(current[i]) };
        const result = yield* this.reflect(data, i, this.ctx.abortSignal);
        if (result === undefined) return undefined;
        results.push(result);
        current[i] = { ...itemFields(current[i]), ...result };
      }
      return { [field]: results };
    }
    const results = yield* runConcurrently(
      items.length,
      this.team.concurrency,
      this.ctx.abortSignal,
      `TeamAgent '${this.team.name}'`,
      (i, signal) => this.reflect({ ...input, ...itemFields(items[i]) }, i, signal),
    );
    if (this.paused) return undefined;
    return { [field]: results };
  }

  async *reflect(
    data: Output,
    item: number | undefined,
    signal: AbortSignal,
  ): AsyncGenerator<Event, Output | undefined, undefined> {
    const reflection = this.team.reflection;
    if (!reflection) return yield* this.once(data, item, 0, signal);
    let roundInput = data;
    let last: Output | undefined;
    for (let round = 0; round < reflection.maxIterations; round++) {
      if (round > 0) yield* this.markRound(item, round);
      const output = yield* this.once(roundInput, item, round, signal);
      if (output === undefined) return undefined;
      const review = yield* this.unit(reflection.reviewer, { ...roundInput, ...output }, item, round, signal);
      if (review === undefined) return undefined;
      const approved =
        typeof reflection.isApproved === 'string'
          ? Boolean(review[reflection.isApproved])
          : await reflection.isApproved(review);
      if (approved) return output;
      last = output;
      // The reviewer's feedback becomes part of the next round's input, visible to every skill.
      roundInput = { ...roundInput, ...review };
    }
    if (reflection.returnLastOnMaxIterations) return last;
    throw new ReflectionError(
      reflection.customErrorMessage ??
        `TeamAgent '${this.team.name}': reviewer '${reflection.reviewer.name}' did not approve the output within ${reflection.maxIterations} rounds (reflection.maxIterations). Raise maxIterations, set returnLastOnMaxIterations, or check the reviewer's criteria.`,
    );
  }

  private async *once(
    data: Output,
    item: number | undefined,
    round: number,
    signal: AbortSignal,
  ): AsyncGenerator<Event, Output | undefined, undefined> {
    const skills = this.team.skills;
    if (this.team.mode === 'sequential') {
      const outputs: Output[] = [];
      let carried: Output = {};
      for (const skill of skills) {
        const output = yield* this.unit(skill, { ...data, ...carried }, item, round, signal);
        if (output === undefined) return undefined;
        outputs.push(output);
        carried = { ...carried, ...output };
      }
      return this.team.includeAllStepsOutput ? Object.assign({}, ...outputs) : outputs[outputs.length - 1];
    }
    // Parallel: the first skill to produce a key (first in time) owns it, for streamed text and objects alike.
    const owners = new Map<string, string>();
    const claim = (key: string, skill: BaseAgent): void => {
      if (!owners.has(key)) owners.set(key, skill.name);
    };
    const outputs = yield* runConcurrently(
      skills.length,
      skills.length,
      signal,
      `TeamAgent '${this.team.name}'`,
      (i, branchSignal) =>
        this.unit(
          skills[i]!,
          data,
          item,
          round,
          branchSignal,
          (event) => {
            if (
              event.partial &&
              event.author === skills[i]!.name &&
              event.content?.parts.some((p) => 'text' in p && p.text)
            )
              claim(outputKeyOf(skills[i]!), skills[i]!);
          },
          (output) => {
            for (const key of Object.keys(output)) claim(key, skills[i]!);
          },
        ),
    );
    if (outputs.some((o) => o === undefined)) return undefined;
    const merged: Output = {};
    skills.forEach((skill, i) => {
      for (const [key, value] of Object.entries(outputs[i]!)) if (owners.get(key) === skill.name) merged[key] = value;
    });
    return merged;
  }

  /** Runs (or, on resume, reuses or continues) one skill or reviewer run. */
  private async *unit(
    agent: BaseAgent,
    input: Output,
    item: number | undefined,
    round: number,
    signal: AbortSignal,
    onEvent?: (event: Event) => void,
    onOutput?: (output: Output) => void,
  ): AsyncGenerator<Event, Output | undefined, undefined> {
    signal.throwIfAborted();
    const key = unitKey(item, round, agent.name);
    const stored = this.progress.done.get(key);
    if (stored !== undefined) {
      onOutput?.(stored);
      return asObject(agent, stored);
    }
    const ctx = this.ctx;
    const resumeFrom =
      ctx.resumeFrom === undefined
        ? undefined
        : (this.progress.roundStarts.get(roundKey(item, round)) ?? ctx.resumeFrom);
    const branch = ctx.childBranch(this.team.name, item === undefined ? agent.name : `${agent.name}[${item}]`);
    const run = runUnit(ctx.fresh().with({ abortSignal: signal }), agent, input, branch, resumeFrom);
    let step = await run.next();
    while (!step.done) {
      onEvent?.(step.value);
      yield step.value;
      step = await run.next();
    }
    if (step.value.paused) {
      this.paused = true;
      return undefined;
    }
    onOutput?.(step.value.output);
    yield this.team.progressEvent(ctx, { unit: key, output: step.value.output });
    return step.value.output;
  }

  private async *markRound(item: number | undefined, round: number): AsyncGenerator<Event, void, undefined> {
    const key = roundKey(item, round);
    if (this.progress.roundStarts.has(key)) return;
    yield this.team.progressEvent(this.ctx, { round: key });
  }
}

function isObject(value: unknown): value is Output {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

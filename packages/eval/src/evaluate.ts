import {
  type BaseAgent,
  type BaseLlm,
  type BasePlugin,
  contentText,
  InMemorySessionService,
  type RunConfig,
  Runner,
  type RunResult,
  userContent,
} from '@troupe/core';
import type { EvalCase, EvalSet, EvalTurn } from './eval-set.js';
import { EvalConfigError } from './errors.js';
import { LlmJudge } from './metrics/llm-judge.js';
import {
  DEFAULT_METRICS,
  DEFAULT_THRESHOLDS,
  type MetricName,
  toMetricName,
  trajectoryMatchOf,
} from './metrics/metric-names.js';
import { rouge1 } from './metrics/rouge.js';
import { loadEvalSet, parseEvalSet } from './parse-eval-set.js';
import type { EvalCaseResult, EvalReport, MetricResult, TurnResult } from './report.js';
import { finalResponseText, toolTrajectory, trajectoryScore } from './trajectory.js';

/** How each case's Runner is set up. */
export interface EvalRunnerOptions {
  /** The app name sessions are created under. @default 'eval' */
  appName?: string;
  /** The user of each case's session when the case names none. @default 'eval_user' */
  userId?: string;
  /** Model for LlmAgents that have none of their own (the CLI's `--model`). */
  defaultModel?: BaseLlm | string;
  plugins?: readonly BasePlugin[];
  /** Limits and settings of every turn's run. */
  runConfig?: RunConfig;
}

/** Options of {@link evaluate}. Give `evalSet` or `evalSetPath`. */
export interface EvaluateOptions {
  /**
   * The agent to evaluate, or a function that builds it; a function is called once per case, so
   * each case gets a fresh agent (and fresh scripted models in tests).
   */
  agent: BaseAgent | (() => BaseAgent | Promise<BaseAgent>);
  /** The eval set: an {@link EvalSet}, or a parsed eval set file in either format (checked like a file). */
  evalSet?: EvalSet | object;
  /** A JSON eval set file, Troupe or ADK format. */
  evalSetPath?: string;
  /**
   * The metrics to score, by name or ADK alias. @default ['trajectory_exact', 'response_match'],
   * plus the metrics named in `thresholds` and `llm_judge` when `judgeModel` is set
   */
  metrics?: readonly string[];
  /** Pass marks (0..1) by metric name or ADK alias. @default see `DEFAULT_THRESHOLDS` (trajectory 1, response 0.8, judge 0.7) */
  thresholds?: Readonly<Record<string, number>>;
  /** The model that scores `llm_judge`: an instance, or a model string resolved through the registry. */
  judgeModel?: BaseLlm | string;
  runnerOptions?: EvalRunnerOptions;
  /** Stops the evaluation: the running turn is cancelled and `evaluate` rejects. */
  abortSignal?: AbortSignal;
}

interface Plan {
  metrics: MetricName[];
  thresholds: Record<MetricName, number>;
  judge: LlmJudge | undefined;
}

/**
 * Runs every case of an eval set against an agent, each on a fresh in-memory session through a
 * Runner, turn by turn, and scores each turn's final response and tool trajectory (nested
 * AgentTool calls included, in call order). A case passes when every metric's mean over its turns
 * reaches the threshold and every turn completed; the report passes when every case does.
 *
 * @example
 * const report = await evaluate({ agent: rootAgent, evalSetPath: 'weather.evalset.json', thresholds: { response_match: 0.6 } });
 * if (!report.passed) process.exitCode = 1;
 */
export async function evaluate(options: EvaluateOptions): Promise<EvalReport> {
  const plan = planMetrics(options);
  const evalSet = await readSet(options);
  const cases: EvalCaseResult[] = [];
  const shared = typeof options.agent === 'function' ? undefined : options.agent;
  try {
    for (const evalCase of evalSet.cases) {
      options.abortSignal?.throwIfAborted();
      cases.push(await runCase(evalCase, options, plan));
    }
  } finally {
    // A shared agent's toolsets (MCP servers) stay open across cases and are closed once, at the end.
    if (shared)
      await new Runner({ appName: 'eval', agent: shared, sessionService: new InMemorySessionService() }).close();
  }
  options.abortSignal?.throwIfAborted();
  const thresholds: Partial<Record<MetricName, number>> = {};
  for (const metric of plan.metrics) thresholds[metric] = plan.thresholds[metric];
  return { evalSetId: evalSet.id, passed: cases.every((c) => c.passed), metrics: plan.metrics, thresholds, cases };
}

function planMetrics(options: EvaluateOptions): Plan {
  if (options.agent === undefined || options.agent === null)
    throw new EvalConfigError('evaluate needs an agent (or a function that builds one).');
  const thresholds: Record<MetricName, number> = { ...DEFAULT_THRESHOLDS };
  const named: MetricName[] = [];
  for (const [name, value] of Object.entries(options.thresholds ?? {})) {
    const metric = toMetricName(name);
    if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 1) {
      throw new EvalConfigError(
        `The threshold of '${name}' must be a number from 0 to 1; got ${JSON.stringify(value)}.`,
      );
    }
    thresholds[metric] = value;
    named.push(metric);
  }
  let metrics: MetricName[];
  if (options.metrics !== undefined) {
    metrics = unique(options.metrics.map(toMetricName));
    if (metrics.length === 0)
      throw new EvalConfigError('metrics is empty; name at least one metric, or leave it out for the defaults.');
    const unscored = named.filter((m) => !metrics.includes(m));
    if (unscored.length > 0) {
      throw new EvalConfigError(
        `There are thresholds for ${unscored.join(', ')}, which metrics (${metrics.join(', ')}) does not include. Add them to metrics or drop their thresholds.`,
      );
    }
  } else {
    metrics = unique([
      ...DEFAULT_METRICS,
      ...named,
      ...(options.judgeModel !== undefined ? (['llm_judge'] as const) : []),
    ]);
  }
  if (metrics.includes('llm_judge') && options.judgeModel === undefined) {
    throw new EvalConfigError(
      `The llm_judge metric needs a judgeModel (a BaseLlm or a model string such as 'gemini-2.5-flash').`,
    );
  }
  return {
    metrics,
    thresholds,
    judge:
      options.judgeModel !== undefined && metrics.includes('llm_judge') ? new LlmJudge(options.judgeModel) : undefined,
  };
}

async function readSet(options: EvaluateOptions): Promise<EvalSet> {
  if ((options.evalSet === undefined) === (options.evalSetPath === undefined)) {
    throw new EvalConfigError('evaluate needs exactly one of evalSet (an object) and evalSetPath (a JSON file).');
  }
  return options.evalSetPath !== undefined ? loadEvalSet(options.evalSetPath) : parseEvalSet(options.evalSet);
}

async function runCase(evalCase: EvalCase, options: EvaluateOptions, plan: Plan): Promise<EvalCaseResult> {
  const settings = options.runnerOptions ?? {};
  const agent = typeof options.agent === 'function' ? await options.agent() : options.agent;
  const runner = new Runner({
    appName: settings.appName ?? 'eval',
    agent,
    sessionService: new InMemorySessionService(),
    ...(settings.plugins ? { plugins: settings.plugins } : {}),
    ...(settings.defaultModel !== undefined ? { defaultModel: settings.defaultModel } : {}),
  });
  const userId = evalCase.userId ?? settings.userId ?? 'eval_user';
  const session = await runner.sessionService.createSession({
    appName: runner.appName,
    userId,
    ...(evalCase.state ? { state: evalCase.state } : {}),
  });
  const turns: TurnResult[] = [];
  let error: string | undefined;
  try {
    for (const [index, turn] of evalCase.turns.entries()) {
      if (error !== undefined) {
        turns.push(skippedTurn(turn));
        continue;
      }
      const result = await runner.run({
        userId,
        sessionId: session.id,
        newMessage: turn.user,
        ...(settings.runConfig ? { runConfig: settings.runConfig } : {}),
        ...(options.abortSignal ? { abortSignal: options.abortSignal } : {}),
      });
      const scored = await scoreTurn(turn, result, plan, options.abortSignal);
      turns.push(scored);
      if (scored.error !== undefined) error = `Turn ${index + 1}: ${scored.error}`;
    }
  } finally {
    // An agent built for this case is closed with it; a shared one is closed by evaluate.
    if (typeof options.agent === 'function') await runner.close();
  }
  const metrics = plan.metrics.map((metric) => aggregate(metric, plan.thresholds[metric], evalCase.turns, turns));
  const result: EvalCaseResult = {
    evalId: evalCase.id,
    passed: error === undefined && metrics.every((m) => m.passed),
    metrics,
    turns,
  };
  if (error !== undefined) result.error = error;
  return result;
}

async function scoreTurn(
  turn: EvalTurn,
  result: RunResult,
  plan: Plan,
  abortSignal: AbortSignal | undefined,
): Promise<TurnResult> {
  const actualResponse = finalResponseText(result.events);
  const actualToolCalls = toolTrajectory(result.events);
  const scored: TurnResult = {
    user: userText(turn),
    status: result.status,
    actualResponse,
    actualToolCalls,
    scores: {},
  };
  if (turn.response !== undefined) scored.expectedResponse = turn.response;
  if (turn.toolCalls !== undefined) scored.expectedToolCalls = turn.toolCalls;
  const problem = runProblem(result);
  if (problem !== undefined) scored.error = problem;
  for (const metric of plan.metrics) {
    const match = trajectoryMatchOf(metric);
    if (match !== undefined) {
      if (turn.toolCalls !== undefined) scored.scores[metric] = trajectoryScore(match, turn.toolCalls, actualToolCalls);
    } else if (turn.response !== undefined) {
      if (metric === 'response_match') {
        scored.scores[metric] = rouge1(actualResponse, turn.response).fmeasure;
      } else if (problem !== undefined) {
        scored.scores[metric] = 0;
      } else if (plan.judge) {
        const verdict = await plan.judge.judge({
          user: scored.user,
          expected: turn.response,
          actual: actualResponse,
          ...(abortSignal ? { abortSignal } : {}),
        });
        scored.scores[metric] = verdict.score;
        scored.judgeReason = verdict.reason;
      }
    }
  }
  return scored;
}

/** Why a turn's run did not complete, or undefined when it did. */
function runProblem(result: RunResult): string | undefined {
  switch (result.status) {
    case 'completed':
      return undefined;
    case 'failed':
      return `the run failed: ${result.error?.message ?? 'unknown error'}`;
    case 'interrupted': {
      const asked = result.interrupts.map((i) => `'${i.toolName}'`).join(', ');
      return `the run paused for approval or input (${asked}); an evaluation cannot answer it`;
    }
    case 'limit':
      return `the run hit a limit (${result.stopReason ?? 'unknown'})`;
    case 'cancelled':
      return 'the run was cancelled';
    case 'blocked':
      return `a guardrail blocked the run: ${result.error?.message ?? 'no message'}`;
  }
}

function skippedTurn(turn: EvalTurn): TurnResult {
  const skipped: TurnResult = {
    user: userText(turn),
    status: 'skipped',
    actualResponse: '',
    actualToolCalls: [],
    scores: {},
  };
  if (turn.response !== undefined) skipped.expectedResponse = turn.response;
  if (turn.toolCalls !== undefined) skipped.expectedToolCalls = turn.toolCalls;
  return skipped;
}

/** A metric's mean over the turns that expect something of it; a skipped turn counts 0. */
function aggregate(
  metric: MetricName,
  threshold: number,
  expected: readonly EvalTurn[],
  turns: readonly TurnResult[],
): MetricResult {
  const trajectory = trajectoryMatchOf(metric) !== undefined;
  const scores: number[] = [];
  turns.forEach((turn, i) => {
    const applies = trajectory ? expected[i]!.toolCalls !== undefined : expected[i]!.response !== undefined;
    if (applies) scores.push(turn.scores[metric] ?? 0);
  });
  if (scores.length === 0) return { metric, score: undefined, threshold, passed: true };
  const score = scores.reduce((sum, s) => sum + s, 0) / scores.length;
  // Scores are ratios of small counts; the tolerance keeps 0.8 from failing a 0.8 threshold by rounding.
  return { metric, score, threshold, passed: score >= threshold - 1e-9 };
}

function userText(turn: EvalTurn): string {
  return contentText(userContent(turn.user));
}

function unique<T>(items: readonly T[]): T[] {
  return [...new Set(items)];
}

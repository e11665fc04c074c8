import type { RunStatus } from '@troupe/core';
import type { ToolCallExpectation, ToolCallRecord } from './eval-set.js';
import type { MetricName } from './metrics/metric-names.js';

/** A metric's result for one case. */
export interface MetricResult {
  metric: MetricName;
  /**
   * The mean of the per-turn scores over the turns that expect something of this metric (a
   * response, a trajectory); undefined when no turn does (the metric does not apply).
   */
  score: number | undefined;
  threshold: number;
  /** `score >= threshold`, or true when the metric does not apply. */
  passed: boolean;
}

/** What happened in one turn of a case, next to what was expected. */
export interface TurnResult {
  /** The user's message (its text). */
  user: string;
  /** How the turn's run ended; `'skipped'` when an earlier turn of the case did not complete. */
  status: RunStatus | 'skipped';
  /** Why the run did not complete. */
  error?: string;
  expectedResponse?: string;
  actualResponse: string;
  expectedToolCalls?: ToolCallExpectation[];
  actualToolCalls: ToolCallRecord[];
  /** This turn's score per metric, for the metrics that apply to it. */
  scores: Partial<Record<MetricName, number>>;
  /** The judge's reason, with the `llm_judge` metric. */
  judgeReason?: string;
}

/** The result of one eval case. */
export interface EvalCaseResult {
  evalId: string;
  /** Every metric passed and every turn completed. */
  passed: boolean;
  /** Why the case could not run all its turns (a run that failed, paused, hit a limit or was cancelled). */
  error?: string;
  metrics: MetricResult[];
  turns: TurnResult[];
}

/** What `evaluate` resolves with. */
export interface EvalReport {
  evalSetId: string;
  /** Every case passed. */
  passed: boolean;
  /** The metrics scored, in order. */
  metrics: MetricName[];
  /** The pass mark of each scored metric. */
  thresholds: Partial<Record<MetricName, number>>;
  cases: EvalCaseResult[];
}

/**
 * Troupe evaluation: run an agent against an eval set (Troupe or ADK format) and score its tool
 * trajectories and final responses; capture stored sessions as eval cases.
 * @packageDocumentation
 */
export type { EvalCase, EvalSet, EvalTurn, ToolCallExpectation, ToolCallRecord } from './eval-set.js';
export { EvalConfigError, EvalSetError, JudgeError } from './errors.js';
export { evaluate, type EvalRunnerOptions, type EvaluateOptions } from './evaluate.js';
export type { EvalCaseResult, EvalReport, MetricResult, TurnResult } from './report.js';
export { detectEvalSetFormat, type EvalSetFormat, loadEvalSet, parseEvalSet } from './parse-eval-set.js';
export { sessionToEvalCase, type SessionToEvalCaseOptions } from './session-to-eval-case.js';
export { callMatches, finalResponseText, jsonEqual, toolTrajectory, trajectoryScore } from './trajectory.js';
export {
  ADK_METRIC_ALIASES,
  DEFAULT_METRICS,
  DEFAULT_THRESHOLDS,
  METRIC_NAMES,
  type MetricName,
  toMetricName,
  type TrajectoryMatch,
  trajectoryMatchOf,
} from './metrics/metric-names.js';
export { rouge1, type RougeScore, tokenize } from './metrics/rouge.js';
export {
  JUDGE_INSTRUCTION,
  type JudgeInput,
  type JudgeVerdict,
  LlmJudge,
  parseJudgeReply,
} from './metrics/llm-judge.js';

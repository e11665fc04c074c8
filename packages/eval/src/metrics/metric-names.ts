import { EvalConfigError } from '../errors.js';

/** How a turn's tool calls are compared with the expected ones. */
export type TrajectoryMatch = 'exact' | 'in_order' | 'any_order' | 'f1';

/**
 * The metrics `evaluate` can score:
 * - `trajectory_exact`: the same calls, in the same order, with the same arguments, nothing else (1 or 0 per turn);
 * - `trajectory_in_order`: the expected calls appear in this order; other calls may come between (1 or 0);
 * - `trajectory_any_order`: every expected call appears, in any order; extra calls allowed (1 or 0);
 * - `trajectory_f1`: partial credit, the F1 of precision (matched / actual calls) and recall (matched / expected calls);
 * - `response_match`: ROUGE-1 F-measure of the final response against the expected one;
 * - `llm_judge`: a judge model's 0..1 score of the final response against the expected one.
 */
export type MetricName =
  | 'trajectory_exact'
  | 'trajectory_in_order'
  | 'trajectory_any_order'
  | 'trajectory_f1'
  | 'response_match'
  | 'llm_judge';

/** Every metric name, in the order reports list them. */
export const METRIC_NAMES: readonly MetricName[] = [
  'trajectory_exact',
  'trajectory_in_order',
  'trajectory_any_order',
  'trajectory_f1',
  'response_match',
  'llm_judge',
];

/** The metrics scored when none are named (ADK's defaults), plus `llm_judge` when a judge model is given. */
export const DEFAULT_METRICS: readonly MetricName[] = ['trajectory_exact', 'response_match'];

/** The pass mark of each metric when no threshold is given. */
export const DEFAULT_THRESHOLDS: Readonly<Record<MetricName, number>> = {
  trajectory_exact: 1,
  trajectory_in_order: 1,
  trajectory_any_order: 1,
  trajectory_f1: 1,
  response_match: 0.8,
  llm_judge: 0.7,
};

/** ADK's metric names, accepted wherever a metric is named. */
export const ADK_METRIC_ALIASES: Readonly<Record<string, MetricName>> = {
  tool_trajectory_avg_score: 'trajectory_exact',
  response_match_score: 'response_match',
  final_response_match_v2: 'llm_judge',
};

/** The trajectory comparison a trajectory metric makes, or undefined for the others. */
export function trajectoryMatchOf(metric: MetricName): TrajectoryMatch | undefined {
  switch (metric) {
    case 'trajectory_exact':
      return 'exact';
    case 'trajectory_in_order':
      return 'in_order';
    case 'trajectory_any_order':
      return 'any_order';
    case 'trajectory_f1':
      return 'f1';
    case 'response_match':
    case 'llm_judge':
      return undefined;
  }
}

/** Turns a metric name or ADK alias into a {@link MetricName}; throws naming the known ones. */
export function toMetricName(name: string): MetricName {
  if ((METRIC_NAMES as readonly string[]).includes(name)) return name as MetricName;
  const alias = ADK_METRIC_ALIASES[name];
  if (alias) return alias;
  throw new EvalConfigError(
    `Unknown metric '${name}'. The metrics are ${METRIC_NAMES.join(', ')} (ADK names ${Object.keys(ADK_METRIC_ALIASES).join(', ')} work too).`,
  );
}

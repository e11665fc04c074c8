import type { EvalReport, ToolCallExpectation, TurnResult } from '@troupe/eval';

/**
 * The report as a terminal table (case, metric, score, threshold, result), followed by what went
 * wrong in the failed cases (expected and actual tool calls and responses, run errors) and a
 * summary line.
 */
export function formatEvalTable(report: EvalReport): string {
  const rows: string[][] = [['case', 'metric', 'score', 'threshold', 'result']];
  for (const result of report.cases) {
    for (const metric of result.metrics) {
      const applies = metric.score !== undefined;
      rows.push([
        result.evalId,
        metric.metric,
        applies ? metric.score!.toFixed(2) : 'n/a',
        metric.threshold.toFixed(2),
        applies ? (metric.passed ? 'pass' : 'FAIL') : 'n/a',
      ]);
    }
    if (result.error !== undefined) rows.push([result.evalId, 'run', '', '', 'ERROR']);
  }
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const lines = rows.map((row) =>
    row.map((cell, column) => (column === row.length - 1 ? cell : cell.padEnd(widths[column]!))).join('  '),
  );
  const out = [`Eval set ${report.evalSetId}`, '', ...lines];
  const failures = failureLines(report);
  if (failures.length > 0) out.push('', 'Failures:', ...failures);
  const passed = report.cases.filter((c) => c.passed).length;
  out.push('', `${passed} of ${report.cases.length} case${report.cases.length === 1 ? '' : 's'} passed.`);
  return `${out.join('\n')}\n`;
}

function failureLines(report: EvalReport): string[] {
  const lines: string[] = [];
  for (const result of report.cases) {
    if (result.passed) continue;
    lines.push(`  ${result.evalId}${result.error !== undefined ? `: ${result.error}` : ''}`);
    const failedMetrics = new Set(result.metrics.filter((m) => !m.passed).map((m) => m.metric));
    result.turns.forEach((turn, i) => {
      const details = turnDetails(turn, failedMetrics);
      if (details.length > 0)
        lines.push(`    turn ${i + 1} (${JSON.stringify(clip(turn.user, 60))}):`, ...details.map((d) => `      ${d}`));
    });
  }
  return lines;
}

function turnDetails(turn: TurnResult, failedMetrics: ReadonlySet<string>): string[] {
  if (turn.status === 'skipped') return [];
  const details: string[] = [];
  const trajectoryFailed = [...failedMetrics].some((m) => m.startsWith('trajectory_'));
  const trajectoryMissed = Object.entries(turn.scores).some(
    ([metric, score]) => metric.startsWith('trajectory_') && (score ?? 1) < 1,
  );
  if (trajectoryFailed && trajectoryMissed && turn.expectedToolCalls !== undefined) {
    details.push(`expected tools: ${calls(turn.expectedToolCalls)}`, `actual tools:   ${calls(turn.actualToolCalls)}`);
  }
  const responseFailed = failedMetrics.has('response_match') || failedMetrics.has('llm_judge');
  if (responseFailed && turn.expectedResponse !== undefined && turn.expectedResponse !== turn.actualResponse) {
    details.push(
      `expected response: ${JSON.stringify(clip(turn.expectedResponse, 160))}`,
      `actual response:   ${JSON.stringify(clip(turn.actualResponse, 160))}`,
    );
  }
  if (failedMetrics.has('llm_judge') && turn.judgeReason) details.push(`judge: ${clip(turn.judgeReason, 160)}`);
  return details;
}

function calls(list: readonly ToolCallExpectation[]): string {
  if (list.length === 0) return '(none)';
  return list
    .map(
      (call) =>
        `${call.agent !== undefined ? `${call.agent}: ` : ''}${call.name}${call.args !== undefined ? ` ${clip(JSON.stringify(call.args), 80)}` : ''}`,
    )
    .join(', ');
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

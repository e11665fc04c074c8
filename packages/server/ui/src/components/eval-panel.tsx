import { useEffect, useState } from 'preact/hooks';
import type { ApiClient } from '../api.js';
import type { EvalReport } from '../types.js';

/** Props of {@link EvalPanel}. */
export interface EvalPanelProps {
  api: ApiClient;
  app: string;
}

/**
 * The app's eval sets (`<id>.evalset.json` in its folder): run one against the agent and see each
 * case passed or failed, with the score of every metric next to its threshold.
 */
export function EvalPanel({ api, app }: EvalPanelProps) {
  const [sets, setSets] = useState<string[]>();
  const [chosen, setChosen] = useState<string>();
  const [running, setRunning] = useState(false);
  const [report, setReport] = useState<EvalReport>();
  const [problem, setProblem] = useState<string>();

  useEffect(() => {
    let current = true;
    setSets(undefined);
    setReport(undefined);
    api.evalSets(app).then(
      (ids) => {
        if (!current) return;
        setSets(ids);
        setChosen(ids[0]);
      },
      (error: unknown) => current && setProblem(error instanceof Error ? error.message : String(error)),
    );
    return () => {
      current = false;
    };
  }, [api, app]);

  const run = async () => {
    if (chosen === undefined) return;
    setRunning(true);
    setProblem(undefined);
    try {
      setReport(await api.runEval(app, chosen));
    } catch (error) {
      setProblem(error instanceof Error ? error.message : String(error));
    } finally {
      setRunning(false);
    }
  };

  return (
    <section class="panel eval" aria-labelledby="eval-heading">
      <h2 id="eval-heading">Eval</h2>
      {sets === undefined ? (
        <p class="empty">Loading eval sets…</p>
      ) : sets.length === 0 ? (
        <p class="empty">
          No eval sets. Put <code>&lt;id&gt;.evalset.json</code> files in the app's folder (or save a session as a case
          with <code>troupe eval --from-session</code>).
        </p>
      ) : (
        <div class="eval-controls">
          <label for="eval-set-select">Eval set</label>
          <select id="eval-set-select" value={chosen} onChange={(e) => setChosen(e.currentTarget.value)}>
            {sets.map((id) => (
              <option key={id} value={id}>
                {id}
              </option>
            ))}
          </select>
          <button type="button" class="primary small" disabled={running} onClick={() => void run()}>
            {running ? 'Running…' : 'Run eval'}
          </button>
        </div>
      )}
      {problem && (
        <p class="error-text" role="alert">
          {problem}
        </p>
      )}
      {report && (
        <div class="eval-report">
          <p class={report.passed ? 'pass' : 'fail'} data-testid="eval-summary">
            {report.passed ? 'PASSED' : 'FAILED'}: {report.cases.filter((c) => c.passed).length} of{' '}
            {report.cases.length} cases passed
          </p>
          <table class="eval-results">
            <thead>
              <tr>
                <th scope="col">Case</th>
                <th scope="col">Result</th>
                {report.metrics.map((metric) => (
                  <th key={metric} scope="col">
                    {metric} <span class="muted">≥ {report.thresholds[metric]}</span>
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {report.cases.map((result) => (
                <tr key={result.evalId} data-case={result.evalId} class={result.passed ? 'pass' : 'fail'}>
                  <th scope="row">
                    <code>{result.evalId}</code>
                    {result.error && <div class="error-text small-text">{result.error}</div>}
                  </th>
                  <td class="case-result">{result.passed ? 'pass' : 'fail'}</td>
                  {report.metrics.map((metric) => {
                    const score = result.metrics.find((m) => m.metric === metric);
                    return (
                      <td key={metric} class={score && !score.passed ? 'fail' : undefined} data-metric={metric}>
                        {score?.score === undefined ? '—' : score.score.toFixed(2)}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
          <details>
            <summary>Turns</summary>
            {report.cases.map((result) => (
              <div key={result.evalId} class="eval-turns">
                <h4>{result.evalId}</h4>
                <ol>
                  {result.turns.map((turn, i) => (
                    <li key={i}>
                      <p>
                        <strong>user:</strong> {turn.user}
                      </p>
                      {turn.expectedResponse !== undefined && (
                        <p>
                          <strong>expected:</strong> {turn.expectedResponse}
                        </p>
                      )}
                      <p>
                        <strong>actual:</strong> {turn.actualResponse}
                      </p>
                      {turn.actualToolCalls.length > 0 && (
                        <p class="muted">tools: {turn.actualToolCalls.map((call) => call.name).join(', ')}</p>
                      )}
                    </li>
                  ))}
                </ol>
              </div>
            ))}
          </details>
        </div>
      )}
    </section>
  );
}

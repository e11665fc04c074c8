import { useEffect, useMemo, useState } from 'preact/hooks';
import type { ApiClient } from '../api.js';
import { traceTimelines } from '../model/trace-timeline.js';
import type { WireTraceSpan } from '../types.js';
import { formatTime } from './format.js';

/** Props of {@link TraceView}. */
export interface TraceViewProps {
  api: ApiClient;
  app: string;
  sessionId: string | undefined;
  /** Changes when the trace should be read again (a run ended). */
  refresh: number;
  /** Selects the event a model call produced. */
  onSelectEvent: (eventId: string) => void;
}

/** The agent, model and tool spans of the session's runs, one timeline per invocation, with durations. */
export function TraceView({ api, app, sessionId, refresh, onSelectEvent }: TraceViewProps) {
  const [spans, setSpans] = useState<WireTraceSpan[]>([]);
  const [problem, setProblem] = useState<string>();
  useEffect(() => {
    if (sessionId === undefined) return setSpans([]);
    let current = true;
    api.sessionTrace(app, sessionId).then(
      (list) => {
        if (!current) return;
        setSpans(list);
        setProblem(undefined);
      },
      (error: unknown) => current && setProblem(error instanceof Error ? error.message : String(error)),
    );
    return () => {
      current = false;
    };
  }, [api, app, sessionId, refresh]);
  const timelines = useMemo(() => traceTimelines(spans), [spans]);

  return (
    <section class="panel trace" aria-labelledby="trace-heading">
      <h2 id="trace-heading">Trace</h2>
      {problem && <p class="error-text">{problem}</p>}
      {timelines.length === 0 ? (
        <p class="empty">
          No spans yet. The server records the agents, model calls and tools of the runs it executes from now on.
        </p>
      ) : (
        timelines.map((timeline) => (
          <div key={timeline.invocationId} class="timeline" data-invocation={timeline.invocationId}>
            <h3>
              <code>{timeline.invocationId}</code>{' '}
              <span class="muted">
                {formatTime(timeline.startMs / 1000)} · {timeline.durationMs} ms
              </span>
            </h3>
            <ol class="span-rows">
              {timeline.rows.map((row) => (
                <li key={row.spanId} class={`span-row ${row.kind}`} data-kind={row.kind}>
                  {row.eventId === undefined ? (
                    <span class="span-label" style={{ paddingLeft: `${row.depth * 12}px` }} title={row.label}>
                      <span class={`tag span-kind ${row.kind}`}>{row.kind}</span> {row.label}
                    </span>
                  ) : (
                    <button
                      type="button"
                      class="span-label link"
                      style={{ paddingLeft: `${row.depth * 12}px` }}
                      title="Show the event and what the model saw"
                      onClick={() => onSelectEvent(row.eventId!)}
                    >
                      <span class={`tag span-kind ${row.kind}`}>{row.kind}</span> {row.label}
                    </button>
                  )}
                  <span class="span-track" aria-hidden="true">
                    <span
                      class={`span-bar ${row.kind}${row.status && row.status !== 'completed' ? ' not-completed' : ''}`}
                      style={{ left: `${row.offset}%`, width: `${row.width}%` }}
                    />
                  </span>
                  <span class="span-duration">
                    {row.durationMs === undefined ? 'open' : `${row.durationMs} ms`}
                    {row.status && row.status !== 'completed' ? ` · ${row.status}` : ''}
                  </span>
                </li>
              ))}
            </ol>
          </div>
        ))
      )}
    </section>
  );
}

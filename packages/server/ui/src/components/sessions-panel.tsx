import type { SessionSummary, WireSession } from '../types.js';

/** Props of {@link SessionsPanel}. */
export interface SessionsPanelProps {
  sessions: readonly WireSession[];
  /** Why the sessions could not be listed (the server's message), when they could not. */
  error?: string | undefined;
  /** Names and start times by session id (read after the list; a session without one shows its id). */
  summaries: ReadonlyMap<string, SessionSummary>;
  current: string | undefined;
  disabled: boolean;
  onOpen: (sessionId: string) => void;
  onNew: () => void;
}

/** The user's stored sessions of the app, newest first, named by their first message; opening one replays its events. */
export function SessionsPanel({ sessions, error, summaries, current, disabled, onOpen, onNew }: SessionsPanelProps) {
  const sorted = [...sessions].sort((a, b) => b.lastUpdateTime - a.lastUpdateTime);
  return (
    <section class="panel sessions" aria-labelledby="sessions-heading">
      <div class="panel-head">
        <h2 id="sessions-heading">Sessions</h2>
        <button type="button" class="primary small" onClick={onNew} disabled={disabled}>
          New session
        </button>
      </div>
      {error !== undefined && sorted.length === 0 ? (
        <p class="empty error-text" role="alert">
          Could not list the sessions: {error}
        </p>
      ) : sorted.length === 0 ? (
        <p class="empty">No sessions yet.</p>
      ) : (
        <ul class="session-list">
          {sorted.map((session) => {
            const summary = summaries.get(session.id);
            const title = summary?.title || undefined;
            return (
              <li key={session.id}>
                <button
                  type="button"
                  class="session-item"
                  aria-current={session.id === current ? 'true' : undefined}
                  disabled={disabled && session.id !== current}
                  onClick={() => onOpen(session.id)}
                  title={`${title ?? '(no message yet)'}\n${session.id}`}
                >
                  <span class={title ? 'session-title' : 'session-title muted'}>{title ?? '(no message yet)'}</span>
                  <span class="session-when muted">
                    <time dateTime={new Date(session.lastUpdateTime * 1000).toISOString()}>
                      {formatDateTime(session.lastUpdateTime)}
                    </time>{' '}
                    · <span class="mono">{shortId(session.id)}</span>
                  </span>
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}

/** "2026-11-24 04:12" in local time: the date always, since sessions outlive the day. */
export function formatDateTime(seconds: number): string {
  const date = new Date(seconds * 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}`;
}

function shortId(id: string): string {
  return id.length > 14 ? `${id.slice(0, 8)}…` : id;
}

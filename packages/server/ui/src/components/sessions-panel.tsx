import type { WireSession } from '../types.js';
import { formatTime } from './format.js';

/** Props of {@link SessionsPanel}. */
export interface SessionsPanelProps {
  sessions: readonly WireSession[];
  current: string | undefined;
  disabled: boolean;
  onOpen: (sessionId: string) => void;
  onNew: () => void;
}

/** The user's stored sessions of the app, newest first; opening one replays its events. */
export function SessionsPanel({ sessions, current, disabled, onOpen, onNew }: SessionsPanelProps) {
  const sorted = [...sessions].sort((a, b) => b.lastUpdateTime - a.lastUpdateTime);
  return (
    <section class="panel sessions" aria-labelledby="sessions-heading">
      <div class="panel-head">
        <h2 id="sessions-heading">Sessions</h2>
        <button type="button" class="primary small" onClick={onNew} disabled={disabled}>
          New session
        </button>
      </div>
      {sorted.length === 0 ? (
        <p class="empty">No sessions yet.</p>
      ) : (
        <ul class="session-list">
          {sorted.map((session) => (
            <li key={session.id}>
              <button
                type="button"
                class="session-item"
                aria-current={session.id === current ? 'true' : undefined}
                disabled={disabled && session.id !== current}
                onClick={() => onOpen(session.id)}
                title={session.id}
              >
                <span class="mono">{shortId(session.id)}</span>
                <span class="muted">{formatTime(session.lastUpdateTime, false)}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

function shortId(id: string): string {
  return id.length > 18 ? `${id.slice(0, 8)}…${id.slice(-6)}` : id;
}

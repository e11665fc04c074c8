import type { ApiClient } from '../api.js';
import { diffState, type StateStep } from '../model/state-replay.js';
import type { WireEvent } from '../types.js';
import { formatTime, prettyJson } from './format.js';
import { ModelCallView } from './model-call-view.js';

/** Props of {@link EventDetail}. */
export interface EventDetailProps {
  api: ApiClient;
  event: WireEvent | undefined;
  index: number | undefined;
  step: StateStep | undefined;
}

/** The selected event: its identity, the state before and after it as a diff, and its JSON. */
export function EventDetail({ api, event, index, step }: EventDetailProps) {
  if (!event || index === undefined || !step) {
    return (
      <section class="panel detail" aria-labelledby="detail-heading">
        <h2 id="detail-heading">Event details</h2>
        <p class="empty">Select an event to see the state before and after it.</p>
      </section>
    );
  }
  const changes = diffState(step.before, step.after);
  return (
    <section class="panel detail" aria-labelledby="detail-heading">
      <h2 id="detail-heading">
        Event #{index + 1} <span class="muted">by {event.author}</span>
      </h2>
      <dl class="meta-grid">
        <dt>time</dt>
        <dd>{formatTime(event.timestamp)}</dd>
        <dt>invocation</dt>
        <dd>
          <code>{event.invocationId || '—'}</code>
        </dd>
        <dt>branch</dt>
        <dd>
          <code>{event.branch || '(top)'}</code>
        </dd>
        <dt>path</dt>
        <dd>
          <code>{event.path || '—'}</code>
        </dd>
        {event.model && (
          <>
            <dt>model</dt>
            <dd>{event.model}</dd>
          </>
        )}
      </dl>
      <ModelCallView api={api} event={event} />
      <h3>State change</h3>
      {changes.length === 0 ? (
        <p class="muted">This event did not change the state.</p>
      ) : (
        <table class="state-diff">
          <caption class="visually-hidden">State before and after event #{index + 1}</caption>
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Before</th>
              <th scope="col">After</th>
            </tr>
          </thead>
          <tbody>
            {changes.map((change) => (
              <tr key={change.key} class={`change-${change.kind}`}>
                <th scope="row">
                  <code>{change.key}</code> <span class="visually-hidden">{change.kind}</span>
                </th>
                <td>
                  {change.kind === 'added' ? (
                    <span class="muted">(unset)</span>
                  ) : (
                    <pre class="json">{prettyJson(change.before)}</pre>
                  )}
                </td>
                <td>
                  {change.kind === 'removed' ? (
                    <span class="muted">(removed)</span>
                  ) : (
                    <pre class="json">{prettyJson(change.after)}</pre>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <details>
        <summary>
          State after this event ({Object.keys(step.after).length}{' '}
          {Object.keys(step.after).length === 1 ? 'key' : 'keys'})
        </summary>
        <pre class="json">{prettyJson(step.after)}</pre>
      </details>
      <details>
        <summary>Event JSON</summary>
        <pre class="json">{prettyJson(event)}</pre>
      </details>
    </section>
  );
}

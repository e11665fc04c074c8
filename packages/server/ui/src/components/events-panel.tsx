import { useEffect, useMemo, useRef } from 'preact/hooks';
import { eventFacts } from '../model/event-facts.js';
import { compactionOf, rewoundIds } from '../model/rewind.js';
import type { KindOf } from '../model/workflow-progress.js';
import type { WireEvent } from '../types.js';
import { EventFactsView } from './event-facts-view.js';
import { formatTime } from './format.js';

/** Props of {@link EventsPanel}. */
export interface EventsPanelProps {
  events: readonly WireEvent[];
  /** The kind of each author, for the words of its progress records. */
  kindOf?: KindOf;
  selected: number | undefined;
  onSelect: (index: number) => void;
  /** Replay: step through the events from the first, the chat and the tree following along. */
  replaying: boolean;
  onReplay: () => void;
  onStopReplay: () => void;
  disabled: boolean;
  /** Takes the session back to before an invocation (asked for on a user message, after a confirmation). */
  onRewind?: (invocationId: string) => void;
}

/**
 * Every stored event of the session, live as the run goes: who, where, and what it carried.
 * Rewound events stay, dimmed and labelled; a compaction shows what it summarised; a user message
 * offers "Rewind to here".
 */
export function EventsPanel({
  events,
  kindOf,
  selected,
  onSelect,
  replaying,
  onReplay,
  onStopReplay,
  disabled,
  onRewind,
}: EventsPanelProps) {
  const rewound = useMemo(() => rewoundIds(events), [events]);
  const list = useRef<HTMLOListElement>(null);
  useEffect(() => {
    const container = list.current;
    const row = selected === undefined ? container?.lastElementChild : container?.children[selected];
    if (container && row instanceof HTMLElement) scrollWithin(container, row);
  }, [selected, events.length]);

  const last = events.length - 1;
  return (
    <section class="panel events" aria-labelledby="events-heading">
      <div class="panel-head">
        <h2 id="events-heading">
          Events <span class="muted">({events.length})</span>
        </h2>
        <div class="replay" role="group" aria-label="Replay">
          <button
            type="button"
            class="small"
            disabled={disabled || events.length === 0 || selected === 0}
            onClick={() => onSelect(Math.max(0, (selected ?? last + 1) - 1))}
          >
            ◀ Prev
          </button>
          {replaying ? (
            <button type="button" class="small" onClick={onStopReplay}>
              ■ Stop
            </button>
          ) : (
            <button type="button" class="small" disabled={disabled || events.length === 0} onClick={onReplay}>
              ▶ Replay
            </button>
          )}
          <button
            type="button"
            class="small"
            disabled={disabled || selected === undefined || selected >= last}
            onClick={() => onSelect(Math.min(last, (selected ?? -1) + 1))}
          >
            Next ▶
          </button>
        </div>
      </div>
      {events.length === 0 ? (
        <p class="empty">No events yet.</p>
      ) : (
        <ol class="event-list" ref={list} aria-label="Session events">
          {events.map((event, index) => {
            const isRewound = rewound.has(event.id);
            const compaction = compactionOf(events, index);
            const rewoundTo = event.actions.rewindBeforeInvocationId;
            const canRewind =
              onRewind !== undefined &&
              !isRewound &&
              event.author === 'user' &&
              event.content !== undefined &&
              events.findIndex((e) => e.invocationId === event.invocationId) === index;
            return (
              <li
                key={event.id}
                class={`event${index === selected ? ' selected' : ''}${event.errorCode ? ' has-error' : ''}${event.interrupt ? ' has-interrupt' : ''}${isRewound ? ' rewound' : ''}`}
                data-author={event.author}
              >
                <button
                  type="button"
                  class="event-head"
                  aria-pressed={index === selected}
                  onClick={() => onSelect(index)}
                >
                  <span class="idx">#{index + 1}</span>
                  <span class="author">{event.author}</span>
                  {isRewound && <span class="rewound-label">rewound</span>}
                  <span class="muted time">{formatTime(event.timestamp)}</span>
                </button>
                <p class="where">
                  {event.branch && (
                    <span>
                      branch <code>{event.branch}</code>
                    </span>
                  )}
                  {event.path && (
                    <span>
                      path <code>{event.path}</code>
                    </span>
                  )}
                </p>
                {compaction && (
                  <div class="event-card compaction-card">
                    <strong>Compacted {compaction.count} events</strong>
                    <p>{compaction.summary}</p>
                  </div>
                )}
                {rewoundTo !== undefined && (
                  <div class="event-card rewind-card">
                    <strong>Rewound</strong> to before invocation <code>{rewoundTo}</code>
                  </div>
                )}
                <EventFactsView facts={eventFacts(event, kindOf)} />
                {canRewind && (
                  <button
                    type="button"
                    class="small rewind-button"
                    disabled={disabled}
                    onClick={() => {
                      if (
                        window.confirm(
                          'Rewind the session to before this message? Its state and artifacts go back; the later events stay, marked rewound.',
                        )
                      )
                        onRewind(event.invocationId);
                    }}
                  >
                    Rewind to here
                  </button>
                )}
              </li>
            );
          })}
        </ol>
      )}
    </section>
  );
}

/**
 * Scrolls the list (only the list) so that the row is in view. `scrollIntoView` would scroll every
 * scrolling ancestor too, and so move the whole page away from the panel the user was looking at
 * when a session opens.
 */
function scrollWithin(container: HTMLElement, row: HTMLElement): void {
  const top = row.offsetTop - container.offsetTop;
  const bottom = top + row.offsetHeight;
  if (top < container.scrollTop) container.scrollTop = top;
  else if (bottom > container.scrollTop + container.clientHeight) container.scrollTop = bottom - container.clientHeight;
}

import { useEffect, useRef } from 'preact/hooks';
import { eventFacts } from '../model/event-facts.js';
import type { WireEvent } from '../types.js';
import { EventFactsView } from './event-facts-view.js';
import { formatTime } from './format.js';

/** Props of {@link EventsPanel}. */
export interface EventsPanelProps {
  events: readonly WireEvent[];
  selected: number | undefined;
  onSelect: (index: number) => void;
  /** Replay: step through the events from the first, the chat and the tree following along. */
  replaying: boolean;
  onReplay: () => void;
  onStopReplay: () => void;
  disabled: boolean;
}

/** Every stored event of the session, live as the run goes: who, where, and what it carried. */
export function EventsPanel({ events, selected, onSelect, replaying, onReplay, onStopReplay, disabled }: EventsPanelProps) {
  const list = useRef<HTMLOListElement>(null);
  useEffect(() => {
    const row = selected === undefined ? list.current?.lastElementChild : list.current?.children[selected];
    row?.scrollIntoView({ block: 'nearest' });
  }, [selected, events.length]);

  const last = events.length - 1;
  return (
    <section class="panel events" aria-labelledby="events-heading">
      <div class="panel-head">
        <h2 id="events-heading">
          Events <span class="muted">({events.length})</span>
        </h2>
        <div class="replay" role="group" aria-label="Replay">
          <button type="button" class="small" disabled={disabled || events.length === 0 || selected === 0} onClick={() => onSelect(Math.max(0, (selected ?? last + 1) - 1))}>
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
          <button type="button" class="small" disabled={disabled || selected === undefined || selected >= last} onClick={() => onSelect(Math.min(last, (selected ?? -1) + 1))}>
            Next ▶
          </button>
        </div>
      </div>
      {events.length === 0 ? (
        <p class="empty">No events yet.</p>
      ) : (
        <ol class="event-list" ref={list} aria-label="Session events">
          {events.map((event, index) => (
            <li key={event.id} class={`event${index === selected ? ' selected' : ''}${event.errorCode ? ' has-error' : ''}${event.interrupt ? ' has-interrupt' : ''}`} data-author={event.author}>
              <button type="button" class="event-head" aria-pressed={index === selected} onClick={() => onSelect(index)}>
                <span class="idx">#{index + 1}</span>
                <span class="author">{event.author}</span>
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
              <EventFactsView facts={eventFacts(event)} />
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}

import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { StreamingText } from '../model/live-run.js';
import type { ChatItem } from '../model/transcript.js';
import type { InterruptInfo } from '../types.js';
import { InlineData } from './inline-data.js';
import { InterruptsPanel } from './interrupts-panel.js';
import { Markdown } from './markdown.js';

/** Props of {@link ChatPanel}. */
export interface ChatPanelProps {
  items: readonly ChatItem[];
  streaming: StreamingText | undefined;
  interrupts: readonly InterruptInfo[];
  running: boolean;
  /** A Stop was asked for and the server has not yet stored the cancellation. */
  stopping?: boolean;
  /** Why sending is not possible now, if it is not. */
  sendBlocked: string | undefined;
  onSend: (text: string) => void;
  onAnswer: (interrupt: InterruptInfo, answer: unknown) => void;
  /** Cancels the run in progress (the server stores the cancellation; the chat then shows it). */
  onStop: () => void;
  onSelectEvent: (index: number) => void;
  /** The structured input form, when the root agent has an inputSchema. */
  inputForm?: ComponentChildren;
}

/** The conversation: messages, the text being streamed, open interrupts and the message box. */
export function ChatPanel({
  items,
  streaming,
  interrupts,
  running,
  stopping = false,
  sendBlocked,
  onSend,
  onAnswer,
  onStop,
  onSelectEvent,
  inputForm,
}: ChatPanelProps) {
  const log = useRef<HTMLDivElement>(null);
  const [draft, setDraft] = useState('');
  useEffect(() => {
    const element = log.current;
    if (element) element.scrollTop = element.scrollHeight;
  }, [items.length, streaming?.text, interrupts.length]);

  const send = () => {
    const text = draft.trim();
    if (text === '' || sendBlocked !== undefined) return;
    onSend(text);
    setDraft('');
  };

  return (
    <section class="panel chat" aria-labelledby="chat-heading">
      <div class="panel-head">
        <h2 id="chat-heading">Chat</h2>
        {running && (
          <button type="button" class="small danger" onClick={onStop} disabled={stopping}>
            {stopping ? 'Stopping…' : 'Stop run'}
          </button>
        )}
      </div>
      <div class="messages" ref={log} role="log" aria-live="polite" aria-label="Conversation">
        <ol class="message-list">
          {items.length === 0 && !streaming && <li class="empty">Send a message to start the conversation.</li>}
          {items.map((item) => (
            <li key={item.key} class={`msg ${item.kind}`} data-author={item.kind === 'user' ? 'user' : item.author}>
              {item.kind === 'user' ? (
                <p class="bubble">{item.text}</p>
              ) : item.kind === 'image' ? (
                <button
                  type="button"
                  class="bubble image link"
                  onClick={() => onSelectEvent(item.eventIndex)}
                  title={`${item.author === 'user' ? 'You' : item.author}: show this event`}
                >
                  <InlineData mimeType={item.mimeType} data={item.data} />
                </button>
              ) : item.kind === 'agent' ? (
                <>
                  <button
                    type="button"
                    class="author link"
                    onClick={() => onSelectEvent(item.eventIndex)}
                    title="Show this event"
                  >
                    {item.author}
                  </button>
                  <div class="bubble">
                    <Markdown text={item.text} />
                  </div>
                </>
              ) : (
                <button
                  type="button"
                  class="step-line link"
                  onClick={() => onSelectEvent(item.eventIndex)}
                  title="Show this event"
                >
                  {item.kind === 'error' ? '⚠ ' : '· '}
                  <strong>{item.author === 'user' ? 'You' : item.author}</strong> {item.text}
                </button>
              )}
            </li>
          ))}
          {streaming && (
            <li class="msg agent streaming" data-streaming="true" aria-busy="true">
              <span class="author">{streaming.author}</span>
              <p class="bubble">
                {streaming.text}
                <span class="cursor" aria-hidden="true">
                  ▍
                </span>
              </p>
            </li>
          )}
        </ol>
      </div>
      <InterruptsPanel interrupts={interrupts} disabled={running} onAnswer={onAnswer} />
      {inputForm}
      <form
        class="composer"
        onSubmit={(e) => {
          e.preventDefault();
          send();
        }}
      >
        <label for="message-input">Message</label>
        <textarea
          id="message-input"
          rows={2}
          value={draft}
          placeholder={sendBlocked ?? 'Type a message; Enter sends, Shift+Enter adds a line'}
          onInput={(e) => setDraft(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
              e.preventDefault();
              send();
            }
          }}
        />
        <button type="submit" class="primary" disabled={sendBlocked !== undefined || draft.trim() === ''}>
          Send
        </button>
      </form>
    </section>
  );
}

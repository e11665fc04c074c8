import { type Event as AgUiEvent, EventType } from '@ag-ui/core';
import { type LaneEncoding, StreamedTextLanes } from '../streamed-text-lanes.js';

/**
 * Text and thought messages as AG-UI events: TEXT_MESSAGE_START (the assistant's, named after the
 * agent), TEXT_MESSAGE_CONTENT, TEXT_MESSAGE_END; a thought message is wrapped in REASONING_START
 * and REASONING_END.
 */
const AG_UI_MESSAGES: LaneEncoding<AgUiEvent> = {
  reasoningIdSuffix: '.thought',
  start: (kind, messageId, event) =>
    kind === 'text'
      ? [{ type: EventType.TEXT_MESSAGE_START, messageId, role: 'assistant', name: event.author }]
      : [
          { type: EventType.REASONING_START, messageId },
          { type: EventType.REASONING_MESSAGE_START, messageId, role: 'reasoning' },
        ],
  delta: (kind, messageId, delta) => ({
    type: kind === 'text' ? EventType.TEXT_MESSAGE_CONTENT : EventType.REASONING_MESSAGE_CONTENT,
    messageId,
    delta,
  }),
  end: (kind, messageId) =>
    kind === 'text'
      ? [{ type: EventType.TEXT_MESSAGE_END, messageId }]
      : [
          { type: EventType.REASONING_MESSAGE_END, messageId },
          { type: EventType.REASONING_END, messageId },
        ],
};

/**
 * The messages agents are streaming, a lane per agent on each branch (see
 * {@link StreamedTextLanes}), as AG-UI events.
 */
export class MessageLanes extends StreamedTextLanes<AgUiEvent> {
  constructor() {
    super(AG_UI_MESSAGES);
  }
}

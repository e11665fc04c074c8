import { type LaneEncoding, StreamedTextLanes } from '../streamed-text-lanes.js';
import type { TroupePartMetadata, UiMessageChunk } from './ui-message-chunk.js';

/**
 * Text and reasoning parts as UI message chunks: `text-start`, `text-delta`, `text-end` (and the
 * same for `reasoning-*`). A part opens with the agent that speaks named in its provider metadata
 * (the AI SDK has no author).
 */
const UI_MESSAGE_PARTS: LaneEncoding<UiMessageChunk> = {
  reasoningIdSuffix: '.reasoning',
  start(kind, id, event) {
    const providerMetadata: TroupePartMetadata = { troupe: { author: event.author, path: event.path } };
    return [
      kind === 'text'
        ? { type: 'text-start', id, providerMetadata }
        : { type: 'reasoning-start', id, providerMetadata },
    ];
  },
  delta: (kind, id, delta) =>
    kind === 'text' ? { type: 'text-delta', id, delta } : { type: 'reasoning-delta', id, delta },
  end: (kind, id) => [kind === 'text' ? { type: 'text-end', id } : { type: 'reasoning-end', id }],
};

/**
 * The text and reasoning parts agents are streaming into the assistant message, a lane per agent
 * on each branch (see {@link StreamedTextLanes}), as UI message chunks.
 */
export class TextLanes extends StreamedTextLanes<UiMessageChunk> {
  constructor() {
    super(UI_MESSAGE_PARTS);
  }
}

import type { Event } from '@troupe/core';
import type { CliIo } from './io.js';
import { finishRender, initialRenderState, renderEvent, type RenderState } from './render-events.js';

/** Where the events of a turn are shown. The CLI's output layer: the only code that writes them. */
export interface EventSink {
  /** Shows one event (partial streaming chunks included). */
  write(event: Event): void;
  /** Ends the output of a turn. */
  endTurn(): void;
  /** True when error events are shown on stderr, so the caller need not repeat them there. */
  readonly errorsOnStderr: boolean;
}

/** The human transcript: streamed text, speakers, tool calls and results on stdout; errors on stderr. */
export function transcriptSink(io: CliIo): EventSink {
  let state: RenderState = initialRenderState;
  return {
    errorsOnStderr: true,
    write(event) {
      const out = renderEvent(event, state);
      state = out.state;
      if (out.text) io.stdout.write(out.text);
      if (out.error) io.stderr.write(`${out.error}\n`);
    },
    endTurn() {
      io.stdout.write(finishRender(state).text);
      // Each turn names its first speaker again, after the user's line.
      state = initialRenderState;
    },
  };
}

/** One JSON line per stored (non-partial) event on stdout, nothing else there; for scripts. */
export function jsonLinesSink(io: CliIo): EventSink {
  return {
    errorsOnStderr: false,
    write(event) {
      if (event.partial) return;
      io.stdout.write(`${JSON.stringify(event)}\n`);
    },
    endTurn() {},
  };
}

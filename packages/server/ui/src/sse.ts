import type { WireEvent } from './types.js';

/**
 * The events of a server-sent-events response, in order: each frame's `data:` lines joined, parsed
 * as one event. Frames may arrive split across chunks or several in one chunk.
 */
export async function* readEventStream(response: Response): AsyncGenerator<WireEvent> {
  if (!response.body) return;
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      buffer += value;
      let end: RegExpExecArray | null;
      while ((end = /\r?\n\r?\n/.exec(buffer))) {
        const frame = buffer.slice(0, end.index);
        buffer = buffer.slice(end.index + end[0].length);
        const event = parseFrame(frame);
        if (event) yield event;
      }
    }
    const last = parseFrame(buffer);
    if (last) yield last;
  } finally {
    reader.releaseLock();
  }
}

/** One frame's event, or undefined for comments and empty frames. */
export function parseFrame(frame: string): WireEvent | undefined {
  const data = frame
    .split(/\r?\n/)
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(line.startsWith('data: ') ? 6 : 5))
    .join('\n');
  if (data.trim() === '') return undefined;
  return JSON.parse(data) as WireEvent;
}

import type { Event } from '@troupe/core';
import type { BackgroundStreamEntry } from './background-runs.js';

/**
 * The frames of a resumed run that came after the resume. A run's stream holds the whole
 * invocation: the frames before it paused, and, when the stream had expired meanwhile, the stored
 * events the worker republished when it took the resume. `stored` are the invocation's events in
 * the session before the resume: frames are skipped up to the last of them; a frame that is
 * neither partial nor one of them shows the pause is behind already.
 */
export async function* afterResume(
  entries: AsyncIterable<BackgroundStreamEntry>,
  stored: readonly Event[],
): AsyncGenerator<BackgroundStreamEntry> {
  const before = new Set(stored.map((event) => event.id));
  const lastId = stored.at(-1)?.id;
  let skipping = lastId !== undefined;
  for await (const entry of entries) {
    if (skipping) {
      const { event } = entry;
      if (event.id === lastId) {
        skipping = false;
        continue;
      }
      if (event.partial || before.has(event.id)) continue;
      skipping = false;
    }
    yield entry;
  }
}

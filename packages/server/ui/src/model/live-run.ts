import type { WireEvent } from '../types.js';

/** Text an agent is streaming: the partial chunks received so far. */
export interface StreamingText {
  author: string;
  path: string;
  text: string;
}

/** The events of the open session and the text being streamed, as a run goes on. */
export interface LiveView {
  events: WireEvent[];
  streaming: StreamingText | undefined;
}

/**
 * Folds one event of a streamed run into the view. A partial chunk extends the streaming text of
 * its author (a new author starts a new text); a complete event is appended once (by id) and ends
 * the streaming text, which it repeats in full.
 */
export function foldEvent(view: LiveView, event: WireEvent): LiveView {
  if (event.partial) {
    const chunk = (event.content?.parts ?? [])
      .map((part) => ('text' in part && !part.thought ? part.text : ''))
      .join('');
    const same = view.streaming?.author === event.author ? view.streaming : undefined;
    return {
      events: view.events,
      streaming: { author: event.author, path: event.path, text: (same?.text ?? '') + chunk },
    };
  }
  const events = view.events.some((e) => e.id === event.id) ? view.events : [...view.events, event];
  return { events, streaming: undefined };
}

/**
 * The event the runner stores for the user's message but does not stream: shown at once, and
 * replaced by the stored one when the session is read again after the run.
 */
export function localUserEvent(text: string, now: number): WireEvent {
  return {
    id: `local-${now}`,
    invocationId: '',
    timestamp: now / 1000,
    author: 'user',
    branch: '',
    path: '',
    content: { role: 'user', parts: [{ text }] },
    actions: { stateDelta: {}, artifactDelta: {} },
  };
}

/** Likewise for a run started with a structured input (kept on the user event as the runner keeps it). */
export function localInputEvent(input: Record<string, unknown>, now: number): WireEvent {
  return {
    id: `local-${now}`,
    invocationId: '',
    timestamp: now / 1000,
    author: 'user',
    branch: '',
    path: '',
    actions: { stateDelta: {}, artifactDelta: {}, agentState: { input } },
  };
}

/** Likewise for the record of the answers sent on resume. */
export function localResumeEvent(invocationId: string, responses: Record<string, unknown>, now: number): WireEvent {
  return {
    id: `local-${now}`,
    invocationId,
    timestamp: now / 1000,
    author: 'user',
    branch: '',
    path: '',
    actions: { stateDelta: {}, artifactDelta: {}, agentState: { resume: { responses } } },
  };
}

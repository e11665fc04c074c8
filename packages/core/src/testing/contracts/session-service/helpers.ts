import { expect } from 'vitest';
import { createEvent, type Event, type EventInit, type Session } from '../../../index.js';

/** The user most tests write as, and another one whose sessions must stay apart. */
export const USER = 'alice';
export const OTHER_USER = 'bob';

/** A new event with the fields the suite does not care about filled in. */
export function event(init: EventInit = {}): Event {
  return createEvent({ invocationId: 'e-contract', author: 'Agent', ...init });
}

/** Model content holding one text part. */
export function text(value: string): { role: 'model'; parts: { text: string }[] } {
  return { role: 'model', parts: [{ text: value }] };
}

/** What a caller holds of a session at this moment: its version and events (a copy, as a cache keeps it). */
export function session0(session: Session): Session {
  return { ...session, state: { ...session.state }, events: [...session.events] };
}

/** The visible text of an event (thoughts left out). */
export function textOfEvent(e: Event): string {
  return (e.content?.parts ?? []).map((p) => ('text' in p && !p.thought ? p.text : '')).join('');
}

/** Fails when anything reached `Object.prototype`. */
export function expectPrototypeClean(): void {
  expect(Object.prototype).not.toHaveProperty('polluted');
  expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

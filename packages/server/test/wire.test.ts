import { describe, expect, it } from 'vitest';
import { createEvent, type Session } from '@troupe/core';
import { encodeEvent, encodeSession, msToSeconds, secondsToMs, sseFrame } from '../src/index.js';

describe('wire encoding', () => {
  it('sends times as seconds (float) and reads them back as milliseconds', () => {
    expect(msToSeconds(1_700_000_000_123)).toBe(1_700_000_000.123);
    expect(secondsToMs(1_700_000_000.123)).toBe(1_700_000_000_123);
    expect(secondsToMs(msToSeconds(1_234_567))).toBe(1_234_567);
  });

  it('keeps every field of the event, id included, and only converts the timestamp', () => {
    const event = createEvent({
      id: 'e1',
      invocationId: 'i1',
      author: 'a',
      timestamp: 1_700_000_000_500,
      content: { role: 'model', parts: [{ text: 'hi' }] },
      usage: { inputTokens: 1, outputTokens: 2 },
    });
    expect(encodeEvent(event)).toEqual({ ...event, timestamp: 1_700_000_000.5 });
    expect(event.timestamp).toBe(1_700_000_000_500);
  });

  it('encodes a session with or without its events', () => {
    const session: Session = {
      id: 's',
      appName: 'app',
      userId: 'u',
      state: { k: 1 },
      events: [createEvent({ timestamp: 2000 })],
      lastUpdateTime: 3000,
      version: 1,
    };
    expect(encodeSession(session)).toEqual({
      id: 's',
      appName: 'app',
      userId: 'u',
      state: { k: 1 },
      lastUpdateTime: 3,
      events: [expect.objectContaining({ timestamp: 2 })],
    });
    expect(encodeSession(session, false)).not.toHaveProperty('events');
  });

  it('an SSE frame is one data: line even when the text has line breaks', () => {
    const frame = sseFrame(createEvent({ content: { role: 'model', parts: [{ text: 'line 1\nline 2\r\nline 3' }] } }));
    expect(frame).toMatch(/^data: [^\n\r]+\n\n$/);
    expect(JSON.parse(frame.slice(6)).content.parts[0].text).toBe('line 1\nline 2\r\nline 3');
  });
});

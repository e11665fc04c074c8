import { expect, it } from 'vitest';
import type { Part } from '@troupe/core';
import type { WireEvent } from '../../src/index.js';
import { eventFacts } from '../../ui/src/model/event-facts.js';
import { isImageType } from '../../ui/src/model/image-types.js';
import { transcript } from '../../ui/src/model/transcript.js';

// How the dev UI treats inlineData parts: images become image items of the chat (drawn as <img>),
// other data stays a fact of the event only.

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAEUlEQVR4nGO4o6GBFTEMLQkAe3tLAfuiUfAAAAAASUVORK5CYII=';

function event(parts: Part[]): WireEvent {
  return {
    id: 'e1',
    invocationId: 'inv-1',
    timestamp: 1_700_000_000,
    author: 'Framer',
    branch: '',
    path: 'Framer',
    actions: { stateDelta: {}, artifactDelta: {} },
    content: { role: 'model', parts },
  };
}

it('an image part is a chat item with its data; other inline data is not', () => {
  const events = [
    event([
      { text: 'Framed it:' },
      { inlineData: { mimeType: 'image/png', data: PNG } },
      { inlineData: { mimeType: 'application/pdf', data: 'JVBERi0=' } },
    ]),
  ];
  expect(transcript(events).map((item) => item.kind)).toEqual(['agent', 'image']);
  expect(transcript(events)[1]).toMatchObject({
    kind: 'image',
    author: 'Framer',
    mimeType: 'image/png',
    data: PNG,
    eventIndex: 0,
  });
  expect(eventFacts(events[0]!).filter((fact) => fact.kind === 'data')).toEqual([
    { kind: 'data', mimeType: 'image/png', bytes: 75, data: PNG },
    { kind: 'data', mimeType: 'application/pdf', bytes: 6, data: 'JVBERi0=' },
  ]);
});

it('shows only image types a browser draws', () => {
  expect(['image/png', 'image/JPEG', 'image/svg+xml', 'image/webp; q=1'].map(isImageType)).toEqual([
    true,
    true,
    true,
    true,
  ]);
  expect(['image/tiff', 'text/html', 'application/octet-stream', 'image/png" onerror="x'].map(isImageType)).toEqual([
    false,
    false,
    false,
    false,
  ]);
});

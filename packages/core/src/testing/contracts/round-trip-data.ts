import { createEvent, type Event } from '../../index.js';

/** State values of every JSON kind, including ones that are easy to get wrong, for store round trips. */
export const richState = {
  text: 'naïve café — 日本語 🎉 "quotes" \\ back\nslash',
  int: 42,
  float: -1.5e-7,
  big: Number.MAX_SAFE_INTEGER,
  zero: 0,
  flag: false,
  none: null,
  list: [1, 'two', { three: [3] }, [], {}],
  nested: { deep: { deeper: { deepest: 'yes' } }, emptyObject: {}, emptyList: [] },
  'user:profile': { name: 'Alice', langs: ['fr', 'en'] },
  'app:config': { retries: 3, ratio: 0.25 },
};

/** An event with every field set, for store round trips. */
export function fullEvent(): Event {
  return createEvent({
    invocationId: 'inv-1',
    author: 'Writer',
    branch: 'Fan.Writer',
    path: 'Root/Fan/Writer',
    timestamp: 1_700_000_000_123,
    content: {
      role: 'model',
      parts: [
        { text: 'draft', thought: true },
        { text: 'done ✓' },
        { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
      ],
    },
    output: { title: 'Tides', score: 0.5 },
    actions: {
      stateDelta: { count: 1, 'user:seen': true },
      artifactDelta: { 'a.md': 1 },
      agentState: { step: 2 },
      route: { key: 'fast' },
    },
    usage: { inputTokens: 10, outputTokens: 2, cachedTokens: 1 },
    model: 'scripted',
    interrupt: {
      id: 'Writer:c1',
      kind: 'confirmation',
      agentPath: 'Writer',
      toolCallId: 'c1',
      toolName: 'publish',
      args: { to: 'web' },
    },
  });
}

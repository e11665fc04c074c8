import { describe, expect, it } from 'vitest';
import { ScriptedModel } from '@troupe/core/testing';
import type { WireSession } from '../src/index.js';
import { call, createSession, runBody, scriptedApp } from './helpers.js';

describe('createApp({ compaction })', () => {
  it("the apps' runners store a compaction event every N turns, which the session shows", async () => {
    const summarizer = new ScriptedModel(['S: hi and bye.'], { model: 'summarizer' });
    const { app, model } = scriptedApp(['a1', 'a2', 'a3'], { compaction: { everyInvocations: 2, summarizer } });
    const s = await createSession(app, 'chat', 'alice');
    for (const text of ['hi', 'bye', 'again']) {
      expect((await call(app, 'POST', '/run', runBody(s, text))).status).toBe(200);
    }
    const session = (await (await call(app, 'GET', `/apps/chat/users/alice/sessions/${s.id}`)).json()) as WireSession;
    const record = session.events!.find((e) => e.actions.compaction);
    expect(record).toMatchObject({
      author: 'user',
      model: 'summarizer',
      actions: { compaction: { summary: { role: 'model', parts: [{ text: 'S: hi and bye.' }] } } },
    });
    // ADK's clients read the summary as EventCompaction.compactedContent.
    expect(record!.actions.compaction!.compactedContent).toEqual(record!.actions.compaction!.summary);
    // Its times are seconds on the wire, like the events' own.
    const first = session.events![0]!;
    expect(record!.actions.compaction!.startTimestamp).toBe(first.timestamp);
    expect(record!.actions.compaction!.endTimestamp).toBeLessThan(1e11);
    expect(model.requests[2]!.contents.map((c) => (c.parts[0] as { text: string }).text)).toEqual([
      '[Summary of the earlier conversation] S: hi and bye.',
      'again',
    ]);
  });
});

import { EventType } from '@ag-ui/client';
import { describe, expect, it } from 'vitest';
import { LlmAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { eventually } from '../helpers.js';
import { client, PacedModel, runOnce, say, serveApps } from './helpers.js';

describe('AG-UI: what the input brings', () => {
  it("the last user message is the turn: inline media become inlineData, other sources are skipped, and the run's context follows as text", async () => {
    const model = new ScriptedModel(['A cat.']);
    const served = await serveApps({ vision: new LlmAgent({ name: 'Looker', model }) });
    const agent = client(served, 'vision');
    agent.addMessage({ id: 'old', role: 'user', content: 'An earlier message the session already holds' });
    agent.addMessage({ id: 'a1', role: 'assistant', content: 'Earlier answer' });
    agent.addMessage({
      id: 'u2',
      role: 'user',
      content: [
        { type: 'text', text: 'What is in this picture?' },
        { type: 'image', source: { type: 'data', value: 'iVBORw0KGgo=', mimeType: 'image/png' } },
        { type: 'image', source: { type: 'url', value: 'https://example.com/cat.png' } },
      ],
    });
    await runOnce(agent, { context: [{ description: 'Page', value: '/gallery' }] });
    expect(model.requests[0]!.contents).toEqual([
      {
        role: 'user',
        parts: [
          { text: 'What is in this picture?' },
          { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } },
          { text: 'Context from the application:\n- Page: /gallery' },
        ],
      },
    ]);
  });

  it('a run cancelled mid-stream closes its open messages before RUN_FINISHED', async () => {
    const model = new PacedModel(
      new ScriptedModel([
        { chunks: ['Once ', 'upon ', 'a ', 'time ', 'there ', 'was ', 'a ', 'very ', 'long ', 'story.'] },
      ]),
      100,
    );
    const served = await serveApps({ tales: new LlmAgent({ name: 'Teller', model }) });
    const agent = client(served, 'tales');
    say(agent, 'Tell me a story');
    const running = runOnce(agent);
    await eventually(() => expect(agent.messages.at(-1)?.content).toMatch(/^Once/));
    await fetch(`${served.url}/apps/tales/users/ag-ui/sessions/${agent.threadId}/cancel`, { method: 'POST' });
    const run = await running;
    expect(run.types.slice(-2)).toEqual([EventType.TEXT_MESSAGE_END, EventType.RUN_FINISHED]);
    expect(run.finished!.outcome).toEqual({ type: 'cancelled' });
  });
});

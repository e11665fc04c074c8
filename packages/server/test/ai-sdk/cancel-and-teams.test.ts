import { describe, expect, it } from 'vitest';
import { LlmAgent, SequentialAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { chatPath, inProcess, send, userMessage } from './helpers.js';

describe('AI SDK chat: teams and cancellation', () => {
  it('a team answers in one assistant message: a text part per agent, each named in providerMetadata', async () => {
    const team = new SequentialAgent({
      name: 'Desk',
      subAgents: [
        new LlmAgent({ name: 'Drafter', model: new ScriptedModel([{ chunks: ['A ', 'draft.'] }]) }),
        new LlmAgent({ name: 'Editor', model: new ScriptedModel(['Edited.']) }),
      ],
    });
    const server = inProcess({ desk: team });
    const reply = await send(server, chatPath('desk', 'u', 'c1'), [userMessage('Write')]);
    expect(reply.message.parts).toMatchObject([
      { type: 'text', text: 'A draft.', providerMetadata: { troupe: { author: 'Drafter', path: 'Desk/Drafter' } } },
      { type: 'text', text: 'Edited.', providerMetadata: { troupe: { author: 'Editor', path: 'Desk/Editor' } } },
    ]);
    const ids = reply.chunks.filter((c) => c.type === 'text-start').map((c) => c.id);
    expect(new Set(ids).size).toBe(2);
  });

  it('the session’s cancel route ends the stream with abort; the cancellation is stored and the chat goes on', async () => {
    const model = new ScriptedModel([{ delayMs: 60_000, reply: 'Too late.' }, 'Ready.']);
    const server = inProcess({ slow: new LlmAgent({ name: 'Slow', model }) });
    const path = chatPath('slow', 'u', 'c1');
    const response = await server.fetch(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ messages: [userMessage('Wait for it')] }),
    });
    expect(response.status).toBe(200);
    // Reading the body starts the run; the cancel route answers once it has ended.
    const body = response.text();
    const cancelled = await server.fetch('/apps/slow/users/u/sessions/c1/cancel', { method: 'POST' });
    expect(cancelled.status).toBe(200);
    const frames = (await body).split('\n\n').filter(Boolean);
    expect(frames.at(-1)).toBe('data: [DONE]');
    const chunks = frames.slice(0, -1).map((f) => JSON.parse(f.slice('data: '.length)) as { type: string });
    expect(chunks.map((c) => c.type)).toEqual(['start', 'abort']);
    const session = await server.sessionService.getSession({ appName: 'slow', userId: 'u', sessionId: 'c1' });
    expect(session!.events.at(-1)!.errorCode).toBe('CANCELLED');

    const next = await send(server, path, [userMessage('Wait for it'), userMessage('Now?')]);
    expect(next.message.parts).toMatchObject([{ type: 'text', text: 'Ready.' }]);
  });
});

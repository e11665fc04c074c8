import { createUIMessageStreamResponse, readUIMessageStream, type UIMessage, type UIMessageChunk } from 'ai';
import { describe, expect, it } from 'vitest';
import { InMemoryRunner, LlmAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { uiMessageStreamOf } from '../../src/index.js';

async function runnerWith(replies: ConstructorParameters<typeof ScriptedModel>[0]) {
  const runner = new InMemoryRunner({ agent: new LlmAgent({ name: 'Echo', model: new ScriptedModel(replies) }) });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  return { runner, sessionId: session.id };
}

async function lastOf(stream: ReadableStream<UIMessageChunk>): Promise<UIMessage | undefined> {
  let message: UIMessage | undefined;
  for await (const snapshot of readUIMessageStream({ stream, terminateOnError: true })) message = snapshot;
  return message;
}

describe('uiMessageStreamOf', () => {
  it('is the stream the AI SDK’s readUIMessageStream and createUIMessageStreamResponse take', async () => {
    const { runner, sessionId } = await runnerWith([{ chunks: ['Hel', 'lo.'] }, 'Bye.']);
    const events = runner.runAsync({ userId: 'u', sessionId, newMessage: 'Hi', runConfig: { streaming: 'sse' } });
    // Typed as the AI SDK's own chunks, without a cast.
    const stream: ReadableStream<UIMessageChunk> = uiMessageStreamOf(events, { messageId: 'm-1' });
    const message = await lastOf(stream);
    expect(message).toMatchObject({ id: 'm-1', role: 'assistant', parts: [{ type: 'text', text: 'Hello.' }] });

    const response = createUIMessageStreamResponse({
      stream: uiMessageStreamOf(runner.runAsync({ userId: 'u', sessionId, newMessage: 'Bye' })),
    });
    expect(response.headers.get('x-vercel-ai-ui-message-stream')).toBe('v1');
    const body = await response.text();
    expect(body).toContain('data: {"type":"text-delta"');
    expect(body.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });

  it('without a messageId, the message is named after the run’s invocation', async () => {
    const { runner, sessionId } = await runnerWith(['Hello.']);
    const message = await lastOf(uiMessageStreamOf(runner.runAsync({ userId: 'u', sessionId, newMessage: 'Hi' })));
    const session = await runner.sessionService.getSession({ appName: runner.appName, userId: 'u', sessionId });
    expect(message!.id).toBe(session!.events.at(-1)!.invocationId);
  });

  it('pulls the run: cancelling the stream leaves the run, which gives its session back', async () => {
    const { runner, sessionId } = await runnerWith([{ chunks: ['a', 'b', 'c'] }, 'Next turn.']);
    const stream = uiMessageStreamOf(
      runner.runAsync({ userId: 'u', sessionId, newMessage: 'Hi', runConfig: { streaming: 'sse' } }),
    );
    const reader = stream.getReader();
    expect((await reader.read()).value).toMatchObject({ type: 'start' });
    expect((await reader.read()).value).toMatchObject({ type: 'text-start' });
    await reader.cancel();
    const session = await runner.sessionService.getSession({ appName: runner.appName, userId: 'u', sessionId });
    // The run stopped where its reader did: its answer was never stored.
    expect(session!.events.some((e) => e.content?.parts.some((p) => 'text' in p && p.text === 'abc'))).toBe(false);
    // The session is free for the next turn.
    const next = await runner.run({ userId: 'u', sessionId, newMessage: 'Again' });
    expect(next.output).toBe('Next turn.');
  });
});

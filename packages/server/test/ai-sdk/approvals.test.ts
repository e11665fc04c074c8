import {
  DefaultChatTransport,
  isToolUIPart,
  lastAssistantMessageIsCompleteWithApprovalResponses,
  type UIMessage,
} from 'ai';
import { describe, expect, it } from 'vitest';
import { LlmAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { transferTool } from '../helpers.js';
import { PlainChat } from './plain-chat.js';
import { chatPath, type ChatServer, inProcess, overHttp, send, typesOf, userMessage } from './helpers.js';

function bank(replies: ConstructorParameters<typeof ScriptedModel>[0]) {
  const sent: number[] = [];
  const model = new ScriptedModel(replies);
  return { agent: new LlmAgent({ name: 'Banker', model, tools: [transferTool(sent)] }), sent, model };
}

/** What addToolApprovalResponse does to the message: the part that asked, answered. */
function answered(message: UIMessage, approved: boolean, reason?: string): UIMessage {
  return {
    ...message,
    parts: message.parts.map((part) =>
      isToolUIPart(part) && part.state === 'approval-requested'
        ? { ...part, state: 'approval-responded', approval: { id: part.approval.id, approved, reason } }
        : part,
    ),
  };
}

async function pausedChat(server: ChatServer, path: string) {
  const ask = userMessage('Send 500 to Bob');
  const paused = await send(server, path, [ask]);
  return { ask, paused };
}

describe('AI SDK chat: confirmations as tool approvals', () => {
  it('asks with tool-approval-request; the approval resumes the same invocation and message, and the tool runs once', async () => {
    const { agent, sent } = bank([
      { functionCalls: [{ name: 'transfer_money', args: { amount: 500 }, id: 'c1' }] },
      'Sent 500.',
    ]);
    const server = inProcess({ bank: agent });
    const path = chatPath('bank', 'alice', 'pay-1');
    const { ask, paused } = await pausedChat(server, path);
    expect(typesOf(paused)).toEqual(['start', 'tool-input-available', 'tool-approval-request', 'finish']);
    expect(paused.chunks.at(-1)).toEqual({ type: 'finish', finishReason: 'tool-calls' });
    const part = paused.message.parts.find(isToolUIPart)!;
    expect(part).toMatchObject({
      type: 'tool-transfer_money',
      toolCallId: 'Banker:c1',
      state: 'approval-requested',
      input: { amount: 500 },
      approval: { id: 'Banker:c1', requestReason: 'Allow tool \'transfer_money\' to run with {"amount":500}?' },
    });
    expect(lastAssistantMessageIsCompleteWithApprovalResponses({ messages: [ask, paused.message] })).toBe(false);
    expect(sent).toEqual([]);

    const approval = answered(paused.message, true);
    expect(lastAssistantMessageIsCompleteWithApprovalResponses({ messages: [ask, approval] })).toBe(true);
    const resumed = await send(server, path, [ask, approval], { continues: approval });
    expect(resumed.chunks[0]).toEqual({ type: 'start', messageId: paused.message.id });
    expect(typesOf(resumed)).toEqual([
      'start',
      'tool-output-available',
      'text-start',
      'text-delta',
      'text-end',
      'finish',
    ]);
    expect(sent).toEqual([500]);
    // One assistant message: the one that asked, now with the tool's output and the answer.
    expect(resumed.message.id).toBe(paused.message.id);
    expect(resumed.message.parts).toMatchObject([
      { type: 'tool-transfer_money', state: 'output-available', output: { status: 'sent', amount: 500 } },
      { type: 'text', text: 'Sent 500.' },
    ]);
    const session = await server.sessionService.getSession({ appName: 'bank', userId: 'alice', sessionId: 'pay-1' });
    expect(new Set(session!.events.map((e) => e.invocationId))).toEqual(new Set([paused.message.id]));

    // The same approval sent again (a retry) is refused and changes nothing: the tool ran once.
    const events = session!.events.length;
    const again = await server.fetch(path, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ id: 'pay-1', messages: [ask, approval], trigger: 'submit-message' }),
    });
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ error: { code: 'INTERRUPT_ANSWERED' } });
    expect(sent).toEqual([500]);
    const after = await server.sessionService.getSession({ appName: 'bank', userId: 'alice', sessionId: 'pay-1' });
    expect(after!.events).toHaveLength(events);
  });

  it('a denial ends the tool part with tool-output-denied: the tool never runs and the model is told why', async () => {
    const { agent, sent, model } = bank([
      { functionCalls: [{ name: 'transfer_money', args: { amount: 900 }, id: 'c1' }] },
      'Understood, nothing was sent.',
    ]);
    const server = inProcess({ bank: agent });
    const path = chatPath('bank', 'alice', 'pay-2');
    const { ask, paused } = await pausedChat(server, path);
    const denial = answered(paused.message, false, 'Too much');
    const resumed = await send(server, path, [ask, denial], { continues: denial });
    expect(typesOf(resumed)).toEqual(['start', 'tool-output-denied', 'text-start', 'text-delta', 'text-end', 'finish']);
    expect(resumed.chunks[1]).toEqual({ type: 'tool-output-denied', toolCallId: 'Banker:c1' });
    expect(resumed.message.parts).toMatchObject([
      { type: 'tool-transfer_money', state: 'output-denied', approval: { approved: false, reason: 'Too much' } },
      { type: 'text', text: 'Understood, nothing was sent.' },
    ]);
    expect(sent).toEqual([]);
    const told = model.requests[1]!.contents.at(-1)!.parts[0]!;
    expect('functionResponse' in told && told.functionResponse.response).toMatchObject({
      error: expect.stringMatching(/rejected/),
      payload: { reason: 'Too much' },
    });
  });

  it('the AI SDK’s chat client (over HTTP): Approve sends the message back by itself and the tool’s result arrives', async () => {
    const { agent, sent } = bank([
      { functionCalls: [{ name: 'transfer_money', args: { amount: 70 }, id: 'c1' }] },
      { chunks: ['Sent ', '70.'] },
    ]);
    const server = await overHttp({ bank: agent });
    const chat = new PlainChat<UIMessage>({
      id: 'pay-3',
      transport: new DefaultChatTransport({ api: `${server.url}${chatPath('bank', 'carol', 'pay-3')}` }),
      sendAutomaticallyWhen: lastAssistantMessageIsCompleteWithApprovalResponses,
    });
    await chat.sendMessage({ text: 'Send 70 to Dan' });
    expect(chat.status).toBe('ready');
    expect(chat.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    const part = chat.messages[1]!.parts.find(isToolUIPart)!;
    expect(part.state).toBe('approval-requested');

    await chat.addToolApprovalResponse({ id: part.approval!.id, approved: true });
    const result = () => chat.messages.at(-1)!.parts.find(isToolUIPart)?.state;
    await expect.poll(result, { timeout: 10_000 }).toBe('output-available');
    await expect.poll(() => chat.status, { timeout: 10_000 }).toBe('ready');
    expect(chat.error).toBeUndefined();
    expect(chat.messages.map((m) => m.role)).toEqual(['user', 'assistant']);
    expect(chat.messages[1]!.parts.map((p) => p.type)).toEqual(['tool-transfer_money', 'text']);
    expect(chat.messages[1]!.parts[1]).toMatchObject({ text: 'Sent 70.' });
    expect(sent).toEqual([70]);
  });
});

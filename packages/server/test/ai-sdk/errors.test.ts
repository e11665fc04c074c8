import { describe, expect, it, vi } from 'vitest';
import { LlmAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { transferTool } from '../helpers.js';
import { chatPath, type ChatServer, inProcess, send, typesOf, userMessage } from './helpers.js';

const post = (server: ChatServer, path: string, body: unknown, headers: Record<string, string> = {}) =>
  server.fetch(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });

async function sessionsOf(server: ChatServer, appName: string, userId: string): Promise<string[]> {
  return (await server.sessionService.listSessions({ appName, userId })).sessions.map((s) => s.id);
}

const echo = () => new LlmAgent({ name: 'Echo', model: new ScriptedModel(['Hello.', 'Hello again.']) });

describe('AI SDK chat: errors', () => {
  it('a failed run ends with an error chunk carrying its message, then finish', async () => {
    const failing = new LlmAgent({
      name: 'Echo',
      model: new ScriptedModel([{ error: 'quota exceeded', status: 429 }]),
    });
    const server = inProcess({ echo: failing });
    const reply = await send(server, chatPath('echo', 'u', 'c1'), [userMessage('Hi')]);
    expect(typesOf(reply)).toEqual(['start', 'error', 'finish']);
    expect(reply.chunks[1]).toMatchObject({ type: 'error', errorText: expect.stringContaining('quota exceeded') });
    expect(reply.chunks[2]).toEqual({ type: 'finish', finishReason: 'error' });
    // The failure is stored as the session's last event, as on every route.
    const session = await server.sessionService.getSession({ appName: 'echo', userId: 'u', sessionId: 'c1' });
    expect(session!.events.at(-1)!.errorMessage).toContain('quota exceeded');
  });

  it.each([
    ['no body', '', undefined, /needs a JSON body/],
    ['not JSON', '{"messages": [', undefined, /not valid JSON/],
    ['no messages', { id: 'c' }, 'messages', /array of UI messages/],
    ['an empty chat', { messages: [] }, 'messages', /at least one message/],
    ['a message without parts', { messages: [{ id: 'm', role: 'user' }] }, 'messages.0.parts', /array/],
    ['an unknown role', { messages: [{ id: 'm', role: 'robot', parts: [] }] }, 'messages.0.role', /'user'/],
    [
      'a part without a type',
      { messages: [{ id: 'm', role: 'user', parts: [{ text: 'x' }] }] },
      'messages.0.parts.0.type',
      /type/,
    ],
    [
      'a text part without text',
      { messages: [{ id: 'm', role: 'user', parts: [{ type: 'text' }] }] },
      'messages.0.parts.0.text',
      /string/,
    ],
    [
      'a user message with nothing to say',
      { messages: [{ id: 'm', role: 'user', parts: [{ type: 'step-start' }] }] },
      'messages.0.parts',
      /text or file part/,
    ],
    [
      'a file by URL',
      {
        messages: [
          {
            id: 'm',
            role: 'user',
            parts: [{ type: 'file', mediaType: 'image/png', url: 'https://example.com/a.png' }],
          },
        ],
      },
      'messages.0.parts.0.url',
      /data URL/,
    ],
    [
      'a system message last',
      { messages: [{ id: 'm', role: 'system', parts: [{ type: 'text', text: 'Be brief' }] }] },
      'messages.0.role',
      /system message/,
    ],
    ['an unknown trigger', { messages: [userMessage('Hi')], trigger: 'resume-stream' }, 'trigger', /submit-message/],
    [
      'regenerate without the message',
      { messages: [userMessage('Hi')], trigger: 'regenerate-message' },
      'messageId',
      /assistant message to answer again/,
    ],
    [
      'an assistant message that answers nothing',
      { messages: [userMessage('Hi'), { id: 'a', role: 'assistant', parts: [{ type: 'text', text: 'Hello.' }] }] },
      'messages.1',
      /waits for nothing/,
    ],
  ] as const)('%s is a 400 naming the field, and nothing is stored', async (_name, body, field, message) => {
    const server = inProcess({ echo: echo() });
    const response = await post(server, chatPath('echo', 'u', 'c1'), body);
    expect(response.status).toBe(400);
    const { error } = (await response.json()) as { error: { code: string; message: string; field?: string } };
    expect(error.message).toMatch(message);
    if (field !== undefined) expect(error).toMatchObject({ code: 'INVALID_REQUEST', field });
    expect(await sessionsOf(server, 'echo', 'u')).toEqual([]);
  });

  it('an unknown app is a 404, and nothing is stored', async () => {
    const server = inProcess({ echo: echo() });
    const response = await post(server, chatPath('nope', 'u', 'c1'), { messages: [userMessage('Hi')] });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error: { code: 'APP_NOT_FOUND' } });
    expect(await sessionsOf(server, 'nope', 'u')).toEqual([]);
  });

  it('needs the user’s token; another user’s chat is a 403, and the same chat id is each user’s own session', async () => {
    const auth = { tokens: { 'alice-token': 'alice', 'bob-token': 'bob' } };
    const server = inProcess({ echo: echo() }, { auth });
    const body = { messages: [userMessage('Hi')] };
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    expect((await post(server, chatPath('echo', 'alice', 'c1'), body)).status).toBe(401);
    quiet.mockRestore();
    const forbidden = await post(server, chatPath('echo', 'alice', 'c1'), body, { Authorization: 'Bearer bob-token' });
    expect(forbidden.status).toBe(403);
    expect(await forbidden.json()).toMatchObject({ error: { code: 'FORBIDDEN' } });
    expect(await sessionsOf(server, 'echo', 'alice')).toEqual([]);

    const alice = await send(server, chatPath('echo', 'alice', 'c1'), [userMessage('Hi')], {
      headers: { Authorization: 'Bearer alice-token' },
    });
    expect(alice.message.parts).toMatchObject([{ type: 'text', text: 'Hello.' }]);
    const bob = await send(server, chatPath('echo', 'bob', 'c1'), [userMessage('Hi')], {
      headers: { Authorization: 'Bearer bob-token' },
    });
    expect(bob.message.parts).toMatchObject([{ type: 'text', text: 'Hello again.' }]);
    const alices = await server.sessionService.getSession({ appName: 'echo', userId: 'alice', sessionId: 'c1' });
    expect(alices!.events.filter((e) => e.author === 'user')).toHaveLength(1);
  });

  it('a new message while an approval is pending is a 409 naming it; the session is unchanged', async () => {
    const sent: number[] = [];
    const model = new ScriptedModel([{ functionCalls: [{ name: 'transfer_money', args: { amount: 5 }, id: 'c1' }] }]);
    const server = inProcess({ bank: new LlmAgent({ name: 'Banker', model, tools: [transferTool(sent)] }) });
    const path = chatPath('bank', 'u', 'c1');
    const paused = await send(server, path, [userMessage('Send 5')]);
    const before = (await server.sessionService.getSession({ appName: 'bank', userId: 'u', sessionId: 'c1' }))!.events;
    const response = await post(server, path, {
      messages: [userMessage('Send 5'), paused.message, userMessage('Hello?')],
    });
    expect(response.status).toBe(409);
    expect(await response.json()).toMatchObject({
      error: { code: 'PENDING_INTERRUPT', message: expect.stringContaining('Banker:c1') },
    });
    const after = (await server.sessionService.getSession({ appName: 'bank', userId: 'u', sessionId: 'c1' }))!.events;
    expect(after).toEqual(before);
    expect(sent).toEqual([]);
  });

  it('an approval whose fields are wrong, or that answers nothing the chat waits for, is a 400 naming the field', async () => {
    const model = new ScriptedModel([{ functionCalls: [{ name: 'transfer_money', args: { amount: 5 }, id: 'c1' }] }]);
    const server = inProcess({ bank: new LlmAgent({ name: 'Banker', model, tools: [transferTool([])] }) });
    const path = chatPath('bank', 'u', 'c1');
    const paused = await send(server, path, [userMessage('Send 5')]);
    const broken = {
      ...paused.message,
      parts: paused.message.parts.map((part) =>
        part.type === 'tool-transfer_money'
          ? { ...part, state: 'approval-responded', approval: { id: 'Banker:c1', approved: 'yes' } }
          : part,
      ),
    };
    const response = await post(server, path, { messages: [userMessage('Send 5'), broken] });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error: { code: 'INVALID_REQUEST', field: 'messages.1.parts.0.approval.approved' },
    });

    const unknown = {
      ...paused.message,
      parts: paused.message.parts.map((part) =>
        part.type === 'tool-transfer_money'
          ? { ...part, state: 'approval-responded', approval: { id: 'Banker:other', approved: true } }
          : part,
      ),
    };
    const notOpen = await post(server, path, { messages: [userMessage('Send 5'), unknown] });
    expect(notOpen.status).toBe(400);
    expect(await notOpen.json()).toMatchObject({
      error: {
        field: 'messages.1.parts.0.approval.id',
        message: expect.stringContaining("no approval 'Banker:other' waiting (it waits for 'Banker:c1')"),
      },
    });
  });
});

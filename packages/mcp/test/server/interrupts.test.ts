import { type InMemorySessionService, InMemorySessionService as Sessions } from '@troupe/core';
import { openInterrupts } from '@troupe/core/hosting';
import type { ElicitRequest } from '@modelcontextprotocol/sdk/types.js';
import { describe, expect, it } from 'vitest';
import { bankAgent, travelAgent } from './apps.js';
import { callWithProgress, connectHttp, sessionIdOf, startApi, textOf } from './helpers.js';

// A run that waits for a person: asked as an elicitation in the same call when the client takes
// them, else returned pending and answered with the resume tool.

async function openOf(sessions: InMemorySessionService, appName: string, sessionId: string) {
  const session = await sessions.getSession({ appName, userId: 'mcp', sessionId });
  return openInterrupts(session!.events);
}

describe('interrupts with the elicitation capability', () => {
  it('an approval is asked as { approve: boolean } and the same call returns the final answer', async () => {
    const { agent, sent } = bankAgent();
    const { mcpUrl } = await startApi({ apps: { bank: agent } });
    const asked: ElicitRequest['params'][] = [];
    const client = await connectHttp(mcpUrl, {
      elicit: (request) => {
        asked.push(request);
        return { action: 'accept', content: { approve: true } };
      },
    });
    const result = await client.callTool({ name: 'bank', arguments: { message: 'send 120' } });
    expect(asked).toEqual([
      {
        mode: 'form',
        message: 'Allow tool \'transfer\' to run with {"amount":120}?',
        requestedSchema: { type: 'object', properties: { approve: { type: 'boolean' } }, required: ['approve'] },
      },
    ]);
    expect(result.isError).toBeFalsy();
    expect(textOf(result as never)).toBe('Transfer done: {"status":"sent","amount":120}');
    expect(sent).toEqual([120]);
  });

  it.each([
    ['declined', { action: 'decline' as const }],
    ['answered approve: false', { action: 'accept' as const, content: { approve: false } }],
  ])('an approval %s rejects the tool call: it never runs, and the run answers', async (_what, reply) => {
    const { agent, sent } = bankAgent();
    const { mcpUrl } = await startApi({ apps: { bank: agent } });
    const client = await connectHttp(mcpUrl, { elicit: () => reply });
    const result = await client.callTool({ name: 'bank', arguments: { message: 'send 120' } });
    expect(result.isError).toBeFalsy();
    expect(sent).toEqual([]);
    expect(textOf(result as never)).toMatch(/^Transfer done: .*reject/i);
  });

  it("an input request's form is its responseSchema; the answer resumes the run in the same call", async () => {
    const { mcpUrl } = await startApi({ apps: { travel: travelAgent() } });
    const asked: ElicitRequest['params'][] = [];
    const client = await connectHttp(mcpUrl, {
      elicit: (request) => {
        asked.push(request);
        return { action: 'accept', content: { nights: 3, breakfast: true } };
      },
    });
    const { result, progress } = await callWithProgress(client, 'travel', { message: 'book Lisbon' });
    expect(asked).toEqual([
      {
        mode: 'form',
        message: 'How many nights in Lisbon, and with breakfast?',
        requestedSchema: {
          type: 'object',
          properties: { nights: { type: 'integer', minimum: 1 }, breakfast: { type: 'boolean' } },
          required: ['nights', 'breakfast'],
        },
      },
    ]);
    expect(textOf(result)).toBe('Booked: {"booked":"Lisbon","nights":3,"breakfast":true}');
    expect(progress.map((p) => p.message)).toEqual([
      'travel: called book',
      'travel: asks for input: How many nights in Lisbon, and with breakfast?',
      'travel: book returned',
      'travel: Booked: {"booked":"Lisbon","nights":3,"breakfast":true}',
    ]);
  });

  it('two approvals of one turn are asked in turn; the run resumes with both answers', async () => {
    const { agent, sent } = bankAgent([120, 80]);
    const { mcpUrl } = await startApi({ apps: { bank: agent } });
    const asked: string[] = [];
    const client = await connectHttp(mcpUrl, {
      elicit: (request) => {
        asked.push(request.message);
        return request.message.includes('120')
          ? { action: 'accept', content: { approve: true } }
          : { action: 'decline' };
      },
    });
    const result = await client.callTool({ name: 'bank', arguments: { message: 'send 120 and 80' } });
    expect(asked).toEqual([
      'Allow tool \'transfer\' to run with {"amount":120}?',
      'Allow tool \'transfer\' to run with {"amount":80}?',
    ]);
    expect(sent).toEqual([120]);
    expect(textOf(result as never)).toMatch(/^Transfer done: \{"status":"sent","amount":120\}, .*reject/i);
  });

  it('a dismissed form leaves the run paused: the call returns the pending interrupt, for the resume tool', async () => {
    const sessionService = new Sessions();
    const { agent, sent } = bankAgent();
    const { mcpUrl } = await startApi({ apps: { bank: agent }, sessionService });
    const client = await connectHttp(mcpUrl, { elicit: () => ({ action: 'cancel' }) });
    const result = await client.callTool({ name: 'bank', arguments: { message: 'send 120' } });
    expect(result.isError).toBe(false);
    expect(textOf(result as never)).toBe(
      "The question was dismissed without an answer; the run still waits. Answer it with the 'resume' tool.\nAllow tool 'transfer' to run with {\"amount\":120}?",
    );
    const sessionId = sessionIdOf(result as never);
    expect(await openOf(sessionService, 'bank', sessionId)).toHaveLength(1);
    expect(sent).toEqual([]);
  });
});

describe('interrupts without the elicitation capability', () => {
  it('the call returns isError: false, the prompt, the interrupt and the session; resume answers it', async () => {
    const sessionService = new Sessions();
    const { agent, sent } = bankAgent();
    const { mcpUrl } = await startApi({ apps: { bank: agent }, sessionService });
    const client = await connectHttp(mcpUrl);
    const paused = await client.callTool({ name: 'bank', arguments: { message: 'send 120' } });
    const sessionId = sessionIdOf(paused as never);
    const [open] = await openOf(sessionService, 'bank', sessionId);
    expect(paused).toEqual({
      content: [{ type: 'text', text: 'Allow tool \'transfer\' to run with {"amount":120}?' }],
      structuredContent: {
        interrupt: {
          interruptId: open!.id,
          kind: 'confirmation',
          toolName: 'transfer',
          args: { amount: 120 },
          prompt: 'Allow tool \'transfer\' to run with {"amount":120}?',
        },
      },
      isError: false,
      _meta: { sessionId },
    });
    expect(sent).toEqual([]);

    const { result, progress } = await callWithProgress(client, 'resume', {
      sessionId,
      interruptId: open!.id,
      answer: true,
    });
    expect(result.isError).toBeFalsy();
    expect(textOf(result)).toBe('Transfer done: {"status":"sent","amount":120}');
    expect(result._meta).toEqual({ sessionId });
    expect(sent).toEqual([120]);
    expect(progress.map((p) => p.message)).toEqual([
      'banker: ledger.updated',
      'banker: transfer returned',
      'banker: Transfer done: {"status":"sent","amount":120}',
    ]);

    // Answered: the same interrupt again is refused, naming it; nothing is stored.
    const before = (await sessionService.getSession({ appName: 'bank', userId: 'mcp', sessionId }))!.events.length;
    const again = await client.callTool({
      name: 'resume',
      arguments: { sessionId, interruptId: open!.id, answer: true },
    });
    expect(again.isError).toBe(true);
    expect(textOf(again as never)).toBe(
      `Interrupt '${open!.id}' is not pending in session '${sessionId}': the session waits for no answer (it was given already, or the run moved on). Pass an interruptId from the latest result's structuredContent.interrupt.`,
    );
    expect((await sessionService.getSession({ appName: 'bank', userId: 'mcp', sessionId }))!.events).toHaveLength(
      before,
    );
  });

  it('an input request is returned with its responseSchema; resume takes the answer, and refuses one of the wrong shape', async () => {
    const sessionService = new Sessions();
    const { mcpUrl } = await startApi({ apps: { travel: travelAgent() }, sessionService });
    const client = await connectHttp(mcpUrl);
    const paused = await client.callTool({ name: 'travel', arguments: { message: 'book Lisbon' } });
    const sessionId = sessionIdOf(paused as never);
    const interrupt = (paused.structuredContent as { interrupt: Record<string, unknown> }).interrupt;
    expect(interrupt).toMatchObject({
      kind: 'input',
      toolName: 'book',
      args: { city: 'Lisbon' },
      prompt: 'How many nights in Lisbon, and with breakfast?',
      responseSchema: { type: 'object', required: ['nights', 'breakfast'] },
    });
    const interruptId = interrupt.interruptId as string;

    const wrong = await client.callTool({
      name: 'resume',
      arguments: { sessionId, interruptId, answer: { nights: 0 } },
    });
    expect(wrong.isError).toBe(true);
    expect(textOf(wrong as never)).toBe(
      `The answer to input request '${interruptId}' does not match its responseSchema: (root): must have required property 'breakfast'; nights: must be >= 1. The run still waits: call 'resume' again with an answer of the shape asked for.`,
    );
    expect(await openOf(sessionService, 'travel', sessionId)).toHaveLength(1);

    const done = await client.callTool({
      name: 'resume',
      arguments: { sessionId, interruptId, answer: { nights: 2, breakfast: false } },
    });
    expect(textOf(done as never)).toBe('Booked: {"booked":"Lisbon","nights":2,"breakfast":false}');
  });
});

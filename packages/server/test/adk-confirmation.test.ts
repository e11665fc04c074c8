import { describe, expect, it } from 'vitest';
import { FunctionTool, InMemorySessionService, LlmAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { z } from 'zod';
import { createApp, type TroupeApp, type WireEvent, type WireSession } from '../src/index.js';
import { adkAnswer, bankApp, call, createSession, expectError, message, runBody, readSse } from './helpers.js';

// The requests below are built as ADK's web UI builds them (adk-web's long-running-response and
// chat components): the answer is a user message whose one part is a function response named
// 'adk_request_confirmation', with the id of that call, and { confirmed, payload } where payload is
// the original call's args; the body also carries streaming, stateDelta (null unless the user edited
// state) and functionCallEventId.

type FunctionCallPart = { functionCall: { id: string; name: string; args: Record<string, unknown> } };
type FunctionResponsePart = { functionResponse: { id: string; name: string; response: Record<string, unknown> } };

/** What ADK's web UI looks for: function calls listed in the event's longRunningToolIds. */
function longRunningCalls(event: WireEvent): FunctionCallPart['functionCall'][] {
  const ids = event.longRunningToolIds ?? [];
  return (event.content?.parts ?? []).flatMap((part) =>
    'functionCall' in part && ids.includes(part.functionCall.id) ? [part.functionCall] : [],
  );
}

/** The confirmation requests a session's events leave unanswered, as ADK's clients tell them (a function response with the id answers). */
function pendingConfirmations(events: readonly WireEvent[]): FunctionCallPart['functionCall'][] {
  const answered = new Set(
    events.flatMap((e) =>
      (e.content?.parts ?? []).flatMap((p) => ('functionResponse' in p ? [p.functionResponse.id] : [])),
    ),
  );
  return events.flatMap(longRunningCalls).filter((c) => c.name === 'adk_request_confirmation' && !answered.has(c.id));
}

/** ADK's answer as its web UI sends it: naming the event that holds the confirmation call. */
function adkAnswerTo(
  sessionId: string,
  confirmationCall: FunctionCallPart['functionCall'],
  functionCallEventId: string,
  response: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) {
  return adkAnswer(sessionId, confirmationCall, response, { functionCallEventId, ...extra });
}

async function readSession(app: TroupeApp, sessionId: string): Promise<WireSession> {
  return (await (await call(app, 'GET', `/apps/bank/users/alice/sessions/${sessionId}`)).json()) as WireSession;
}

async function pausedOverSse() {
  const bank = bankApp([
    { functionCalls: [{ name: 'transfer_money', args: { amount: 500 }, id: 'c1' }] },
    'Done: sent 500.',
  ]);
  const s = await createSession(bank.app, 'bank', 'alice');
  const { events } = await readSse(
    await call(bank.app, 'POST', '/run_sse', {
      appName: 'bank',
      userId: 'alice',
      sessionId: s.id,
      newMessage: message('send 500'),
      streaming: true,
    }),
  );
  return { ...bank, sessionId: s.id, paused: events };
}

describe("ADK's adk_request_confirmation on the wire", () => {
  it('a confirmation interrupt also carries the adk_request_confirmation call, long-running, as ADK emits it', async () => {
    const { paused } = await pausedOverSse();
    const pause = paused.at(-1)!;
    expect(pause.interrupt).toMatchObject({ id: 'Banker:c1', kind: 'confirmation', toolCallId: 'c1' });
    expect(pause.longRunningToolIds).toEqual(['Banker:c1']);
    expect(pause.content).toEqual({
      role: 'model',
      parts: [
        {
          functionCall: {
            id: 'Banker:c1',
            name: 'adk_request_confirmation',
            args: {
              originalFunctionCall: { id: 'c1', name: 'transfer_money', args: { amount: 500 } },
              toolConfirmation: { hint: 'Allow tool \'transfer_money\' to run with {"amount":500}?', confirmed: false },
            },
          },
        },
      ],
    });
    // The original call is on the wire too, with the id the confirmation names.
    expect(
      paused.some((e) =>
        e.content?.parts.some(
          (p) => 'functionCall' in p && p.functionCall.id === 'c1' && p.functionCall.name === 'transfer_money',
        ),
      ),
    ).toBe(true);
  });

  it("approving as ADK's web UI does (/run_sse) resumes the same invocation; the tool runs once; a reloaded session shows it answered", async () => {
    const { app, sent, sessionId, paused } = await pausedOverSse();
    const pause = paused.at(-1)!;
    // A reloaded ADK web UI finds the request in GET session.
    const reloaded = await readSession(app, sessionId);
    const [request] = pendingConfirmations(reloaded.events!);
    expect(request).toEqual(longRunningCalls(pause)[0]);

    const payload = request!.args.originalFunctionCall as { args: unknown };
    const res = await call(
      app,
      'POST',
      '/run_sse',
      adkAnswerTo(sessionId, request!, pause.id, { confirmed: true, payload: payload.args }, { streaming: true }),
    );
    const { events } = await readSse(res);
    expect(sent).toEqual([500]);
    expect(events.every((e) => e.invocationId === pause.invocationId)).toBe(true);
    expect(events.filter((e) => !e.partial)[0]!.content!.parts[0]).toEqual({
      functionResponse: { id: 'c1', name: 'transfer_money', response: { status: 'sent', amount: 500 } },
    });
    expect(events.at(-1)!.content!.parts).toEqual([{ text: 'Done: sent 500.' }]);

    const after = await readSession(app, sessionId);
    expect(pendingConfirmations(after.events!)).toEqual([]);
    const record = after.events!.find((e) =>
      e.content?.parts.some((p) => 'functionResponse' in p && p.functionResponse.name === 'adk_request_confirmation'),
    )!;
    expect(record).toMatchObject({ author: 'user', invocationId: pause.invocationId });
    expect(record.content).toEqual({
      role: 'user',
      parts: [
        {
          functionResponse: {
            id: 'Banker:c1',
            name: 'adk_request_confirmation',
            response: { confirmed: true, payload: { amount: 500 } },
          },
        },
      ],
    });

    // Answering again changes nothing: a 409 naming the interrupt; the tool ran once.
    const again = await expectError(
      await call(app, 'POST', '/run_sse', adkAnswerTo(sessionId, request!, pause.id, { confirmed: true })),
      409,
      'INTERRUPT_ANSWERED',
    );
    expect(again).toMatch(/already answered/);
    expect(sent).toEqual([500]);
  });

  it('a rejection over /run (the JSON-string form ADK also reads) never runs the tool; the model is told', async () => {
    const bank = bankApp([{ functionCalls: [{ name: 'transfer_money', args: { amount: 9 }, id: 'x' }] }, 'Cancelled.']);
    const s = await createSession(bank.app, 'bank', 'alice');
    const paused = (await (await call(bank.app, 'POST', '/run', runBody(s, 'send 9'))).json()) as WireEvent[];
    const pause = paused.at(-1)!;
    const [request] = longRunningCalls(pause);
    expect(request!.name).toBe('adk_request_confirmation');

    const res = await call(
      bank.app,
      'POST',
      '/run',
      adkAnswerTo(s.id, request!, pause.id, { response: '{"confirmed":false}' }),
    );
    expect(res.status).toBe(200);
    const events = (await res.json()) as WireEvent[];
    expect(bank.sent).toEqual([]);
    const rejected = events[0]!.content!.parts[0] as FunctionResponsePart;
    expect(rejected.functionResponse).toMatchObject({ id: 'x', name: 'transfer_money' });
    expect(rejected.functionResponse.response.error).toMatch(/rejected/);
    expect(events.at(-1)!.content!.parts).toEqual([{ text: 'Cancelled.' }]);
    expect(
      bank.model.requests
        .at(-1)!
        .contents.some((c) =>
          c.parts.some((p) => 'functionResponse' in p && /rejected/.test(String(p.functionResponse.response.error))),
        ),
    ).toBe(true);
  });

  it('an answer may also name the original tool call id; hint and payload of ctx.requestConfirmation are in toolConfirmation', async () => {
    const deleted: string[] = [];
    const remove = new FunctionTool({
      name: 'delete_file',
      description: 'Deletes a file.',
      parameters: z.object({ path: z.string() }),
      execute: async ({ path }, ctx) => {
        await ctx.requestConfirmation({ hint: `Delete ${path}?`, payload: { backup: true } });
        deleted.push(path);
        return { deleted: path };
      },
    });
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'delete_file', args: { path: '/tmp/a' }, id: 'd1' }] },
      'Deleted.',
    ]);
    const app = createApp({
      apps: { bank: new LlmAgent({ name: 'Files', model, tools: [remove] }) },
      sessionService: new InMemorySessionService(),
    });
    const s = await createSession(app, 'bank', 'alice');
    const paused = (await (await call(app, 'POST', '/run', runBody(s, 'delete /tmp/a'))).json()) as WireEvent[];
    const [request] = longRunningCalls(paused.at(-1)!);
    expect(request!.args).toEqual({
      originalFunctionCall: { id: 'd1', name: 'delete_file', args: { path: '/tmp/a' } },
      toolConfirmation: { hint: 'Delete /tmp/a?', confirmed: false, payload: { backup: true } },
    });

    const res = await call(
      app,
      'POST',
      '/run',
      adkAnswerTo(s.id, { ...request!, id: 'd1' }, paused.at(-1)!.id, { confirmed: true }),
    );
    expect(res.status).toBe(200);
    expect(deleted).toEqual(['/tmp/a']);
  });

  it('the stateDelta sent with the answer (ADK web sends edited state with its next message) is stored, and the run resumes', async () => {
    const { app, sent, sessionId, paused } = await pausedOverSse();
    const [request] = longRunningCalls(paused.at(-1)!);
    const res = await call(
      app,
      'POST',
      '/run',
      adkAnswerTo(
        sessionId,
        request!,
        paused.at(-1)!.id,
        { confirmed: true },
        { stateDelta: { __session_metadata__: { displayName: 'Rent' } } },
      ),
    );
    expect(res.status).toBe(200);
    expect(sent).toEqual([500]);
    expect((await readSession(app, sessionId)).state).toEqual({ __session_metadata__: { displayName: 'Rent' } });
  });

  it('bad answers are 4xx that store nothing and run nothing', async () => {
    const { app, sent, sessionId, paused } = await pausedOverSse();
    const pause = paused.at(-1)!;
    const [request] = longRunningCalls(pause);
    const before = (await readSession(app, sessionId)).events!.length;
    const field = async (res: Response) => ((await res.clone().json()) as { error: { field?: string } }).error.field;

    const unknown = await call(
      app,
      'POST',
      '/run',
      adkAnswerTo(sessionId, { ...request!, id: 'Banker:nope' }, pause.id, { confirmed: true }),
    );
    expect(await field(unknown)).toBe('newMessage.parts.0.functionResponse.id');
    expect(await expectError(unknown, 400, 'INTERRUPT_RESPONSE')).toMatch(
      /no 'adk_request_confirmation' call 'Banker:nope'/,
    );

    const notBoolean = await call(
      app,
      'POST',
      '/run',
      adkAnswerTo(sessionId, request!, pause.id, { confirmed: 'yes' }),
    );
    expect(await field(notBoolean)).toBe('newMessage.parts.0.functionResponse.response.confirmed');
    await expectError(notBoolean, 400, 'INVALID_REQUEST');
    const badJson = await call(
      app,
      'POST',
      '/run_sse',
      adkAnswerTo(sessionId, request!, pause.id, { response: '{confirmed' }),
    );
    expect(await field(badJson)).toBe('newMessage.parts.0.functionResponse.response.response');
    await expectError(badJson, 400, 'INVALID_REQUEST');

    const mixed = adkAnswerTo(sessionId, request!, pause.id, { confirmed: true });
    mixed.newMessage.parts.push({ text: 'and also' } as never);
    const mixedRes = await call(app, 'POST', '/run', mixed);
    expect(await field(mixedRes)).toBe('newMessage.parts');
    await expectError(mixedRes, 400, 'INVALID_REQUEST');
    const withInput = await call(
      app,
      'POST',
      '/run',
      adkAnswerTo(sessionId, request!, pause.id, { confirmed: true }, { input: { x: 1 } }),
    );
    expect(await field(withInput)).toBe('input');
    await expectError(withInput, 400, 'INVALID_REQUEST');
    const otherInvocation = await call(
      app,
      'POST',
      '/run',
      adkAnswerTo(sessionId, request!, pause.id, { confirmed: true }, { invocationId: 'e-other' }),
    );
    expect(await field(otherInvocation)).toBe('invocationId');
    await expectError(otherInvocation, 400, 'INVALID_REQUEST');
    await expectError(
      await call(app, 'POST', '/run', {
        ...adkAnswerTo(sessionId, request!, pause.id, { confirmed: true }),
        sessionId: 'missing',
      }),
      404,
      'SESSION_NOT_FOUND',
    );

    expect(sent).toEqual([]);
    expect((await readSession(app, sessionId)).events!.length).toBe(before);
    // Still waiting: a plain message is refused, as before.
    await expectError(
      await call(app, 'POST', '/run', { appName: 'bank', userId: 'alice', sessionId, newMessage: message('hello?') }),
      409,
      'PENDING_INTERRUPT',
    );
  });

  it("follows the user rules of the resume route: another user's token cannot approve", async () => {
    const bank = bankApp([{ functionCalls: [{ name: 'transfer_money', args: { amount: 500 }, id: 'c1' }] }, 'ok'], {
      auth: { tokens: { 'alice-token': 'alice', 'bob-token': 'bob' } },
    });
    const alice = { Authorization: 'Bearer alice-token' };
    const s = await createSession(bank.app, 'bank', 'alice', undefined, alice);
    const paused = (await (
      await call(
        bank.app,
        'POST',
        '/run',
        { appName: 'bank', userId: 'alice', sessionId: s.id, newMessage: message('send 500') },
        alice,
      )
    ).json()) as WireEvent[];
    const [request] = longRunningCalls(paused.at(-1)!);
    await expectError(
      await call(bank.app, 'POST', '/run', adkAnswerTo(s.id, request!, paused.at(-1)!.id, { confirmed: true }), {
        Authorization: 'Bearer bob-token',
      }),
      403,
      'FORBIDDEN',
    );
    expect(bank.sent).toEqual([]);
    expect(
      (await call(bank.app, 'POST', '/run', adkAnswerTo(s.id, request!, paused.at(-1)!.id, { confirmed: true }), alice))
        .status,
    ).toBe(200);
    expect(bank.sent).toEqual([500]);
  });

  it("a Troupe client's resume route works unchanged, and ADK clients then see the request answered", async () => {
    const { app, sent, sessionId } = await pausedOverSse();
    const { events } = await readSse(
      await call(app, 'POST', `/apps/bank/users/alice/sessions/${sessionId}/resume`, {
        responses: { 'Banker:c1': true },
      }),
    );
    expect(sent).toEqual([500]);
    expect(events.at(-1)!.content!.parts).toEqual([{ text: 'Done: sent 500.' }]);
    expect(pendingConfirmations((await readSession(app, sessionId)).events!)).toEqual([]);
  });
});

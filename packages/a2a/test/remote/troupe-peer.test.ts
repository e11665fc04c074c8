// Troupe ↔ Troupe: a RemoteA2aAgent calling an agent tree served by a2aApp (both in this process,
// over HTTP on 127.0.0.1): streaming, approvals and input requests asked by the remote tool and
// answered here, refused approvals, and cancellation across the two.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { getRequestListener } from '@hono/node-server';
import { afterEach, describe, expect, it } from 'vitest';
import { FunctionTool, InMemorySessionService, LlmAgent, SequentialAgent, textOf, type BaseAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { z } from 'zod';
import { a2aApp } from '../../src/server/index.js';
import { RemoteA2aAgent, RemoteA2aError } from '../../src/remote/index.js';
import { collect, eventually, runnerFor, sse } from './helpers.js';

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((resolve) => {
          s.closeAllConnections();
          s.close(() => resolve());
        }),
    ),
  );
});

/** Serves `agent` with a2aApp on a loopback port; returns its base URL and session store. */
async function serveTroupe(agent: BaseAgent, options: { allowRemoteApprovals?: boolean } = {}) {
  const sessionService = new InMemorySessionService();
  const holder: { fetch?: (request: Request) => Response | Promise<Response> } = {};
  const listener = getRequestListener((request) => holder.fetch!(request));
  const server = createServer((req, res) => void listener(req, res));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const app = a2aApp(agent, { baseUrl, sessionService, ...options });
  holder.fetch = (request) => app.fetch(request);
  return { baseUrl, sessionService };
}

/** A bank whose transfer tool needs an approval; `sent` records what it really did. */
function bank(sent: number[], replies: ConstructorParameters<typeof ScriptedModel>[0]) {
  const transferMoney = new FunctionTool({
    name: 'transfer_money',
    description: 'Sends money.',
    parameters: z.object({ amount: z.number() }),
    requireConfirmation: true,
    execute: ({ amount }) => {
      sent.push(amount);
      return { status: 'sent' };
    },
  });
  return new LlmAgent({
    name: 'Bank',
    description: 'Moves money.',
    model: new ScriptedModel(replies),
    tools: [transferMoney],
  });
}

const transferCall = { functionCalls: [{ name: 'transfer_money', args: { amount: 500 } }] };

describe('RemoteA2aAgent calling a Troupe a2aApp', () => {
  it('streams the remote answer as partial events and stores it once', async () => {
    const remote = new LlmAgent({ name: 'Poet', model: new ScriptedModel([{ chunks: ['Roses ', 'are ', 'red.'] }]) });
    const { baseUrl } = await serveTroupe(remote);
    const { runner, sessionId, events } = await runnerFor(
      new RemoteA2aAgent({ name: 'RemotePoet', agentCard: baseUrl }),
    );
    const { events: seen, result } = await collect(
      runner.runAsync({ userId: 'u', sessionId, newMessage: 'A poem', runConfig: sse }),
    );
    expect(result.output).toBe('Roses are red.');
    expect(
      seen
        .filter((e) => e.partial && !e.content!.parts.some((p) => 'thought' in p && p.thought))
        .map(textOf)
        .join(''),
    ).toBe('Roses are red.');
    expect((await events()).filter((e) => e.author === 'RemotePoet' && e.content).map(textOf)).toEqual([
      'Roses are red.',
    ]);
  });

  it('an approval asked by the remote tool is answered here: the remote tool runs once, on the same remote task', async () => {
    const sent: number[] = [];
    const { baseUrl, sessionService } = await serveTroupe(bank(sent, [transferCall, 'Sent 500 to Bob.']), {
      allowRemoteApprovals: true,
    });
    const pipeline = new SequentialAgent({
      name: 'Desk',
      subAgents: [new RemoteA2aAgent({ name: 'RemoteBank', agentCard: baseUrl })],
    });
    const { runner, sessionId } = await runnerFor(pipeline);

    const paused = await runner.run({ userId: 'u', sessionId, newMessage: 'Send 500 to Bob' });
    expect(paused.status).toBe('interrupted');
    const [approval] = paused.interrupts;
    expect(approval).toMatchObject({
      kind: 'confirmation',
      toolName: 'transfer_money',
      args: { amount: 500 },
      agentPath: 'Desk/RemoteBank',
    });
    expect(sent).toEqual([]);

    const done = await runner.resume({ userId: 'u', sessionId, responses: { [approval!.id]: true } });
    expect(done.status).toBe('completed');
    expect(done.output).toBe('Sent 500 to Bob.');
    expect(sent).toEqual([500]);
    // One remote session, one remote invocation (task): the answer continued it.
    const { sessions } = await sessionService.listSessions({ appName: 'Bank', userId: 'a2a' });
    expect(sessions).toHaveLength(1);
    const remoteEvents = (await sessionService.getSession({
      appName: 'Bank',
      userId: 'a2a',
      sessionId: sessions[0]!.id,
    }))!.events;
    expect(new Set(remoteEvents.map((e) => e.invocationId)).size).toBe(1);
  });

  it('a rejection here means the remote tool never runs', async () => {
    const sent: number[] = [];
    const { baseUrl } = await serveTroupe(bank(sent, [transferCall, 'The transfer was not approved.']), {
      allowRemoteApprovals: true,
    });
    const { runner, sessionId } = await runnerFor(new RemoteA2aAgent({ name: 'RemoteBank', agentCard: baseUrl }));
    const paused = await runner.run({ userId: 'u', sessionId, newMessage: 'Send 500 to Bob' });
    const done = await runner.resume({ userId: 'u', sessionId, responses: { [paused.interrupts[0]!.id]: false } });
    expect(done.output).toBe('The transfer was not approved.');
    expect(sent).toEqual([]);
  });

  it('a remote that does not accept remote approvals fails with its reason instead of asking again', async () => {
    const sent: number[] = [];
    const { baseUrl } = await serveTroupe(bank(sent, [transferCall]));
    const { runner, sessionId } = await runnerFor(new RemoteA2aAgent({ name: 'RemoteBank', agentCard: baseUrl }));
    const paused = await runner.run({ userId: 'u', sessionId, newMessage: 'Send 500 to Bob' });
    const done = await runner.resume({ userId: 'u', sessionId, responses: { [paused.interrupts[0]!.id]: true } });
    expect(done.status).toBe('failed');
    expect(done.error).toBeInstanceOf(RemoteA2aError);
    expect(done.error).toMatchObject({ code: 'A2A_ANSWER_REFUSED' });
    expect(done.error!.message).toContain('allowRemoteApprovals');
    expect(sent).toEqual([]);
  });

  it('an input request of the remote tool is answered here with a value', async () => {
    const accounts: string[] = [];
    const pick = new FunctionTool({
      name: 'pick_account',
      description: 'Picks an account.',
      parameters: z.object({}),
      execute: async (_args, ctx) => {
        const account = await ctx.requestInput<string>({
          message: 'Which account?',
          responseSchema: { type: 'string' },
        });
        accounts.push(account);
        return { account };
      },
    });
    const remote = new LlmAgent({
      name: 'Accounts',
      model: new ScriptedModel([{ functionCalls: [{ name: 'pick_account', args: {} }] }, 'Using savings.']),
      tools: [pick],
    });
    const { baseUrl } = await serveTroupe(remote);
    const { runner, sessionId } = await runnerFor(new RemoteA2aAgent({ name: 'RemoteAccounts', agentCard: baseUrl }));
    const paused = await runner.run({ userId: 'u', sessionId, newMessage: 'Pay the bill' });
    expect(paused.interrupts[0]).toMatchObject({
      kind: 'input',
      message: 'Which account?',
      responseSchema: { type: 'string' },
    });
    const done = await runner.resume({ userId: 'u', sessionId, responses: { [paused.interrupts[0]!.id]: 'savings' } });
    expect(done.output).toBe('Using savings.');
    expect(accounts).toEqual(['savings']);
  });

  it('cancelling the local run cancels the remote invocation', async () => {
    let started = false;
    const slow = new FunctionTool({
      name: 'slow_job',
      description: 'Takes long.',
      parameters: z.object({}),
      execute: async (_args, ctx) => {
        started = true;
        await new Promise((resolve, reject) => {
          const timer = setTimeout(resolve, 30_000);
          ctx.abortSignal.addEventListener('abort', () => {
            clearTimeout(timer);
            reject(ctx.abortSignal.reason as Error);
          });
        });
        return { done: true };
      },
    });
    const remote = new LlmAgent({
      name: 'Worker',
      model: new ScriptedModel([{ functionCalls: [{ name: 'slow_job', args: {} }] }, 'done']),
      tools: [slow],
    });
    const { baseUrl, sessionService } = await serveTroupe(remote);
    const { runner, sessionId } = await runnerFor(new RemoteA2aAgent({ name: 'RemoteWorker', agentCard: baseUrl }));
    const controller = new AbortController();
    const running = runner.run({
      userId: 'u',
      sessionId,
      newMessage: 'Do the job',
      abortSignal: controller.signal,
      runConfig: sse,
    });
    await eventually(() => started, 10_000, 'the remote tool to start');
    // The remote task's id is stored once the first update arrived; give the record a moment.
    await eventually(
      async () =>
        (await runner.sessionService.getSession({ appName: 'app', userId: 'u', sessionId }))!.events.some(
          (e) => e.actions.agentState,
        ),
      5_000,
      'the progress record',
    );
    controller.abort();
    expect((await running).status).toBe('cancelled');
    await eventually(
      async () => {
        const { sessions } = await sessionService.listSessions({ appName: 'Worker', userId: 'a2a' });
        const events = sessions[0]
          ? (await sessionService.getSession({ appName: 'Worker', userId: 'a2a', sessionId: sessions[0].id }))!.events
          : [];
        return events.some((e) => e.errorCode === 'CANCELLED');
      },
      10_000,
      'the remote invocation to be cancelled',
    );
  });
});

/**
 * Compaction and rewind over a persistent SessionService (SPEC §15): what one Runner stores, a new
 * Runner over a NEW service instance on the same storage (what a new process gets) reads the same
 * way. Every check drives core's `Runner` with `ScriptedModel`.
 *
 * @example
 * longSessionsContract('SqliteSessionService', async () => {
 *   const service = new SqliteSessionService({ path });
 *   return { service, close: () => service.close() };
 * });
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { FunctionTool, LlmAgent, Runner, type SessionService } from '../../index.js';
import { rewoundEventIds } from '../../hosting/index.js';
import { ScriptedModel } from '../index.js';
import type { OpenedService } from './persistent-runner.contract.js';

const textsOf = (contents: { parts: unknown[] }[]): string[] =>
  contents.flatMap((c) =>
    (c.parts as { text?: string }[]).flatMap((p) => (typeof p.text === 'string' ? [p.text] : [])),
  );

/** Registers the compaction and rewind persistence checks for one implementation. */
export function longSessionsContract(name: string, open: () => Promise<OpenedService>): void {
  describe(`Compaction and rewind on a persistent store: ${name}`, () => {
    const opened: OpenedService[] = [];
    const openService = async (): Promise<SessionService> => {
      const next = await open();
      opened.push(next);
      return next.service;
    };
    afterEach(async () => {
      for (const o of opened.splice(0).reverse()) await o.close();
    });
    const appName = `long-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    const userId = 'u';

    it('a new Runner over a new service instance sees the same compacted history', async () => {
      const service = await openService();
      const summarizer = new ScriptedModel(['S: the user asked q1 and q2.']);
      const firstModel = new ScriptedModel(['a1', 'a2']);
      const runner = new Runner({
        appName,
        agent: new LlmAgent({ name: 'Helper', model: firstModel }),
        sessionService: service,
        compaction: { everyInvocations: 2, summarizer },
      });
      const session = await service.createSession({ appName, userId });
      await runner.run({ userId, sessionId: session.id, newMessage: 'q1' });
      await runner.run({ userId, sessionId: session.id, newMessage: 'q2' });

      const later = await openService();
      const stored = (await later.getSession({ appName, userId, sessionId: session.id }))!;
      const record = stored.events.find((e) => e.actions.compaction)!;
      expect(record.actions.compaction).toMatchObject({
        summary: { role: 'model', parts: [{ text: 'S: the user asked q1 and q2.' }] },
      });
      expect(typeof record.actions.compaction!.startTimestamp).toBe('number');
      const model = new ScriptedModel(['a3']);
      const next = new Runner({
        appName,
        agent: new LlmAgent({ name: 'Helper', model }),
        sessionService: later,
        compaction: { everyInvocations: 2, summarizer },
      });
      expect((await next.run({ userId, sessionId: session.id, newMessage: 'q3' })).status).toBe('completed');
      expect(textsOf(model.requests[0]!.contents)).toEqual([
        '[Summary of the earlier conversation] S: the user asked q1 and q2.',
        'q3',
      ]);
    });

    it('a rewind is stored: after reopening, state, rewound events and history are as it left them', async () => {
      const write = new FunctionTool({
        name: 'write',
        description: 'Writes state.',
        parameters: z.object({ key: z.string(), value: z.string() }),
        execute: ({ key, value }, ctx) => {
          ctx.state.set(key, value);
          return { ok: true };
        },
      });
      const service = await openService();
      const model = new ScriptedModel([
        { functionCalls: [{ name: 'write', args: { key: 'plan', value: 'A' } }] },
        'a1',
        { functionCalls: [{ name: 'write', args: { key: 'extra', value: 'x' } }] },
        'a2',
      ]);
      const runner = new Runner({
        appName,
        agent: new LlmAgent({ name: 'Helper', model, tools: [write] }),
        sessionService: service,
      });
      const session = await service.createSession({ appName, userId, state: { kept: 1 } });
      await runner.run({ userId, sessionId: session.id, newMessage: 'q1' });
      const second = await runner.run({ userId, sessionId: session.id, newMessage: 'q2', stateDelta: { plan: 'B' } });
      await runner.rewind({ userId, sessionId: session.id, beforeInvocationId: second.invocationId });

      const later = await openService();
      const stored = (await later.getSession({ appName, userId, sessionId: session.id }))!;
      expect(stored.state).toEqual({ kept: 1, plan: 'A' });
      const rewind = stored.events.at(-1)!;
      expect(rewind.actions.rewindBeforeInvocationId).toBe(second.invocationId);
      expect([...rewoundEventIds(stored.events)]).toEqual(
        stored.events.filter((e) => e.invocationId === second.invocationId).map((e) => e.id),
      );

      const nextModel = new ScriptedModel(['a3']);
      const next = new Runner({
        appName,
        agent: new LlmAgent({ name: 'Helper', model: nextModel, tools: [write] }),
        sessionService: later,
      });
      await next.run({ userId, sessionId: session.id, newMessage: 'q3' });
      expect(textsOf(nextModel.requests[0]!.contents)).toEqual(['q1', 'a1', 'q3']);
      // A second rewind over the reopened store recomputes from the stored events.
      const first = stored.events[0]!.invocationId;
      await next.rewind({ userId, sessionId: session.id, beforeInvocationId: first });
      expect((await (await openService()).getSession({ appName, userId, sessionId: session.id }))!.state).toEqual({
        kept: 1,
      });
    });
  });
}

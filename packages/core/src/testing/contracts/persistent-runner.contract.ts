/**
 * What a persistent SessionService adds to the contract (SPEC §8): a run paused in one process is
 * resumed by another. Each `open()` gives a NEW service instance over the same storage, as a new
 * process would get, and every check drives core's `Runner` with `ScriptedModel`.
 *
 * @example
 * persistentRunnerContract('SqliteSessionService', () => {
 *   const service = new SqliteSessionService({ path });
 *   return Promise.resolve({ service, close: () => service.close() });
 * });
 */
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  FunctionAgent,
  FunctionTool,
  LlmAgent,
  Runner,
  SequentialAgent,
  getFunctionResponses,
  type BaseAgent,
  type SessionService,
} from '../../index.js';
import { ScriptedModel } from '../index.js';

/** A service instance and how to close it (the storage stays). */
export interface OpenedService {
  service: SessionService;
  close: () => Promise<void>;
}

/** Registers the runner-over-a-persistent-store checks for one implementation. */
export function persistentRunnerContract(name: string, open: () => Promise<OpenedService>): void {
  describe(`Runner on a persistent store: ${name}`, () => {
    const opened: OpenedService[] = [];
    const openService = async (): Promise<SessionService> => {
      const next = await open();
      opened.push(next);
      return next.service;
    };
    afterEach(async () => {
      for (const o of opened.splice(0).reverse()) await o.close();
    });
    const appName = `resume-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    const userId = 'u';

    async function startRun(agent: BaseAgent) {
      const service = await openService();
      const runner = new Runner({ appName, agent, sessionService: service });
      const session = await service.createSession({ appName, userId });
      return { runner, sessionId: session.id };
    }

    it('an interrupted run is resumed by a new Runner over a new service instance, and completes', async () => {
      const log: string[] = [];
      const transfer = new FunctionTool({
        name: 'transfer_money',
        description: 'Transfers money.',
        parameters: z.object({ amount: z.number() }),
        requireConfirmation: true,
        execute: ({ amount }, ctx) => {
          log.push(`sent ${amount}`);
          ctx.state.set('user:lastTransfer', amount);
          return { status: 'sent', amount };
        },
      });
      const banker = (model: ScriptedModel) => new LlmAgent({ name: 'Banker', model, tools: [transfer] });

      const first = await startRun(
        banker(new ScriptedModel([{ functionCalls: [{ name: 'transfer_money', args: { amount: 500 }, id: 'c1' }] }])),
      );
      const paused = await first.runner.run({ userId, sessionId: first.sessionId, newMessage: 'send 500' });
      expect(paused.status).toBe('interrupted');
      expect(paused.interrupts.map((i) => i.id)).toEqual(['Banker:c1']);
      expect(log).toEqual([]);

      // Another "process": nothing shared with the first but the storage.
      const secondModel = new ScriptedModel(['Done: sent 500.']);
      const second = new Runner({ appName, agent: banker(secondModel), sessionService: await openService() });
      const done = await second.resume({ userId, sessionId: first.sessionId, responses: { 'Banker:c1': true } });
      expect(done.status).toBe('completed');
      expect(done.output).toBe('Done: sent 500.');
      expect(log).toEqual(['sent 500']);
      expect(new Set(done.events.map((e) => e.invocationId))).toEqual(new Set([paused.events[0]!.invocationId]));
      expect(done.events.flatMap(getFunctionResponses)).toEqual([
        { id: 'c1', name: 'transfer_money', response: { status: 'sent', amount: 500 } },
      ]);
      // The model saw the call and its single answer, rebuilt from the stored events.
      expect(JSON.stringify(secondModel.requests[0]!.contents).match(/functionResponse/g)).toHaveLength(1);
      secondModel.assertDone();

      // A third instance sees the finished session: one interrupt, answered once, state stored.
      const third = await openService();
      const stored = await third.getSession({ appName, userId, sessionId: first.sessionId });
      expect(stored!.events.filter((e) => e.interrupt)).toHaveLength(1);
      expect(stored!.state['user:lastTransfer']).toBe(500);
      expect(stored!.events.at(-1)!.content).toEqual({ role: 'model', parts: [{ text: 'Done: sent 500.' }] });
      const thirdRunner = new Runner({ appName, agent: banker(new ScriptedModel([])), sessionService: third });
      await expect(
        thirdRunner.resume({ userId, sessionId: first.sessionId, responses: { 'Banker:c1': true } }),
      ).rejects.toMatchObject({ code: 'INTERRUPT_ANSWERED', message: expect.stringMatching(/already answered/) });
    });

    it('a run that failed midway is resumed by invocation id from a new service instance without repeating finished steps', async () => {
      const ran: string[] = [];
      const step = (stepName: string, failOnce = false) =>
        new FunctionAgent({
          name: stepName,
          run: () => {
            ran.push(stepName);
            if (failOnce && ran.filter((r) => r === stepName).length === 1) throw new Error('crash');
            return stepName;
          },
        });
      const flow = () =>
        new SequentialAgent({ name: 'Flow', subAgents: [step('One'), step('Two', true), step('Three')] });
      const first = await startRun(flow());
      const crashed = await first.runner.run({ userId, sessionId: first.sessionId, newMessage: 'go' });
      expect(crashed.status).toBe('failed');

      const second = new Runner({ appName, agent: flow(), sessionService: await openService() });
      const resumed = await second.resume({
        userId,
        sessionId: first.sessionId,
        invocationId: crashed.events[0]!.invocationId,
      });
      expect(resumed.status).toBe('completed');
      expect(resumed.output).toBe('Three');
      expect(ran).toEqual(['One', 'Two', 'Two', 'Three']);
    });
  });
}

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FunctionTool, InMemoryRunner, LlmAgent, Runner } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { EvalSetError, evaluate, sessionToEvalCase } from '@troupe/eval';
import { SqliteSessionService } from '@troupe/sqlite';
import { conciergeAgent, notesAgent } from './fixtures/agents.js';

const dir = mkdtempSync(join(tmpdir(), 'troupe-eval-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('sessionToEvalCase', () => {
  it('captures a SQLite session (user turns, final responses, nested trajectories) that the same agent then passes', async () => {
    const path = join(dir, 'round-trip.db');
    const store = new SqliteSessionService({ path });
    const runner = new Runner({ appName: 'concierge', agent: conciergeAgent(), sessionService: store });
    const session = await store.createSession({ appName: 'concierge', userId: 'ada', sessionId: 's1' });
    for (const message of ['What is the weather in Paris?', 'And in Rome?']) {
      expect((await runner.run({ userId: 'ada', sessionId: session.id, newMessage: message })).status).toBe(
        'completed',
      );
    }
    await store.close();

    // Read back from the file by a new service, as `troupe eval --from-session` does.
    const reopened = new SqliteSessionService({ path });
    const stored = await reopened.getSession({ appName: 'concierge', userId: 'ada', sessionId: 's1' });
    await reopened.close();
    const evalCase = sessionToEvalCase(stored!, { evalId: 'weather-chat' });
    expect(evalCase).toEqual({
      id: 'weather-chat',
      turns: [
        {
          user: 'What is the weather in Paris?',
          response: 'The desk says: sunny, 21 degrees.',
          toolCalls: [
            { name: 'WeatherDesk', args: { request: 'What is the weather in Paris?' }, agent: 'Concierge' },
            { name: 'get_weather', args: { city: 'Paris' }, agent: 'Concierge/WeatherDesk' },
          ],
        },
        {
          user: 'And in Rome?',
          response: 'The desk says: sunny, 21 degrees.',
          toolCalls: [
            { name: 'WeatherDesk', args: { request: 'And in Rome?' }, agent: 'Concierge' },
            { name: 'get_weather', args: { city: 'Rome' }, agent: 'Concierge/WeatherDesk' },
          ],
        },
      ],
    });

    const report = await evaluate({
      agent: conciergeAgent,
      evalSet: { id: 'captured', cases: [evalCase] },
      metrics: ['trajectory_exact', 'response_match'],
    });
    expect(report.passed).toBe(true);
    expect(report.cases[0]!.metrics.map((m) => m.score)).toEqual([1, 1]);
  });

  it('uses the session id as the case id and keeps the given state and description', async () => {
    const runner = new InMemoryRunner({ agent: notesAgent() });
    const session = await runner.sessionService.createSession({
      appName: runner.appName,
      userId: 'u',
      state: { tone: 'dry' },
    });
    await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'Remember that my name is Ada' });
    const stored = await runner.sessionService.getSession({
      appName: runner.appName,
      userId: 'u',
      sessionId: session.id,
    });
    const evalCase = sessionToEvalCase(stored!, { state: { tone: 'dry' }, description: 'remembers names' });
    expect(evalCase).toMatchObject({ id: session.id, description: 'remembers names', state: { tone: 'dry' } });
    expect(evalCase.turns).toEqual([
      {
        user: 'Remember that my name is Ada',
        response: 'Noted.',
        toolCalls: [{ name: 'save_note', args: { text: 'Remember that my name is Ada' }, agent: 'Notes' }],
      },
    ]);
  });

  it('refuses sessions without turns, with a failed turn, or with an approval', async () => {
    const empty = new InMemoryRunner({ agent: notesAgent() });
    const none = await empty.sessionService.createSession({ appName: empty.appName, userId: 'u', sessionId: 'empty' });
    expect(() => sessionToEvalCase(none)).toThrow("Session 'empty' has no user turns to make an eval case from.");

    const failing = new InMemoryRunner({
      agent: new LlmAgent({ name: 'Down', instruction: 'x', model: new ScriptedModel([{ error: 'provider down' }]) }),
    });
    const failed = await failing.sessionService.createSession({
      appName: failing.appName,
      userId: 'u',
      sessionId: 'failed',
    });
    await failing.run({ userId: 'u', sessionId: failed.id, newMessage: 'hi' });
    const storedFailure = await failing.sessionService.getSession({
      appName: failing.appName,
      userId: 'u',
      sessionId: 'failed',
    });
    expect(() => sessionToEvalCase(storedFailure!)).toThrow(EvalSetError);
    expect(() => sessionToEvalCase(storedFailure!)).toThrow(/Turn 1 of session 'failed' failed \(.*provider down.*\)/);

    const pay = new FunctionTool({
      name: 'pay',
      description: 'Pays.',
      parameters: { type: 'object', properties: {} },
      requireConfirmation: true,
      execute: () => ({ paid: true }),
    });
    const asking = new InMemoryRunner({
      agent: new LlmAgent({
        name: 'Payer',
        instruction: 'x',
        tools: [pay],
        model: new ScriptedModel([{ functionCalls: [{ name: 'pay' }] }]),
      }),
    });
    const paused = await asking.sessionService.createSession({
      appName: asking.appName,
      userId: 'u',
      sessionId: 'paused',
    });
    expect((await asking.run({ userId: 'u', sessionId: paused.id, newMessage: 'pay' })).status).toBe('interrupted');
    const storedPause = await asking.sessionService.getSession({
      appName: asking.appName,
      userId: 'u',
      sessionId: 'paused',
    });
    expect(() => sessionToEvalCase(storedPause!)).toThrow(
      "Turn 1 of session 'paused' asked for approval (tool 'pay'); an evaluation cannot answer it",
    );
  });
});

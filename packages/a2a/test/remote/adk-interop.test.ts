// Troupe's RemoteA2aAgent against Google ADK for JS 2.0's own A2A server (A2A v0.3 on the wire),
// started as a separate node process from test/interop/adk-js (its own install). Outside CI the
// suite is skipped when that install is missing; in CI (CI=true) it runs and fails, because a CI
// run that skipped it would prove nothing.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LlmAgent, SequentialAgent, textOf } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { RemoteA2aAgent } from '../../src/remote/index.js';
import { collect, runnerFor, sse } from './helpers.js';

const ADK_DIR = fileURLToPath(new URL('../../../../test/interop/adk-js/', import.meta.url));
const HAVE_ADK = existsSync(`${ADK_DIR}node_modules/@google/adk/package.json`);
const IN_CI = /^(1|true|yes)$/i.test(process.env.CI ?? '');
if (!HAVE_ADK && !IN_CI) {
  console.warn(
    `Skipping the ADK JS interoperability tests: ${ADK_DIR}node_modules is missing. Install it with: npm ci --prefix test/interop/adk-js`,
  );
}

describe.skipIf(!HAVE_ADK && !IN_CI)('RemoteA2aAgent with an ADK JS 2.0 A2A server', () => {
  let server: ChildProcess | undefined;
  let url = '';

  beforeAll(async () => {
    if (!HAVE_ADK) {
      throw new Error(
        `Google ADK for JS is not installed in ${ADK_DIR}, and CI=true requires the A2A interoperability tests to run. Install it with: npm ci --prefix test/interop/adk-js (.ci/run does this).`,
      );
    }
    server = spawn(process.execPath, ['remote-peer-server.mjs'], { cwd: ADK_DIR, stdio: ['ignore', 'pipe', 'pipe'] });
    url = await new Promise<string>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(
        () => reject(new Error(`The ADK server did not start within 30 s. Output: ${output}`)),
        30_000,
      );
      const read = (chunk: Buffer) => {
        output += chunk.toString();
        const ready = /READY (\S+)/.exec(output);
        if (ready) {
          clearTimeout(timer);
          resolve(ready[1]!);
        }
      };
      server!.stdout!.on('data', read);
      server!.stderr!.on('data', read);
      server!.once('exit', (code) => reject(new Error(`The ADK server exited (${code}). Output: ${output}`)));
    });
  }, 40_000);

  afterAll(() => {
    if (server?.pid !== undefined && server.exitCode === null) process.kill(server.pid, 'SIGTERM');
  });

  it('as a step of a SequentialAgent: streams the ADK answer and stores it once', async () => {
    const concierge = new RemoteA2aAgent({ name: 'Concierge', agentCard: url });
    const greeter = new LlmAgent({
      name: 'Greeter',
      model: new ScriptedModel(['Welcome to the hotel.']),
      instruction: 'Greet.',
    });
    const { runner, sessionId, events } = await runnerFor(
      new SequentialAgent({ name: 'Desk', subAgents: [greeter, concierge] }),
    );

    const { events: seen, result } = await collect(
      runner.runAsync({ userId: 'u', sessionId, newMessage: 'Where is breakfast?', runConfig: sse }),
    );

    expect(result.status).toBe('completed');
    expect(result.output).toBe(
      'Bonjour! Turn 1: you asked "For context: [Greeter] said: Welcome to the hotel. Where is breakfast?".',
    );
    expect(
      seen
        .filter((e) => e.partial && e.author === 'Concierge')
        .map(textOf)
        .join(''),
    ).toBe(result.output);
    expect((await events()).filter((e) => e.author === 'Concierge' && e.content).map(textOf)).toEqual([result.output]);
  });

  it('as a transfer target of an LlmAgent, described by its card; the next turn continues the ADK session', async () => {
    const concierge = new RemoteA2aAgent({ name: 'Concierge', agentCard: url });
    await concierge.loadCard();
    expect(concierge.description).toBe('A concierge served by Google ADK for JS over A2A.');
    const transfer = { functionCalls: [{ name: 'transfer_to_agent', args: { agent_name: 'Concierge' } }] };
    const model = new ScriptedModel([transfer, transfer]);
    const root = new LlmAgent({ name: 'Reception', model, instruction: 'Route guests.', subAgents: [concierge] });
    const { runner, sessionId } = await runnerFor(root);

    const first = await runner.run({ userId: 'u', sessionId, newMessage: 'Is the pool open?' });
    expect(first.output).toBe('Bonjour! Turn 1: you asked "Is the pool open?".');
    expect(JSON.stringify(model.requests[0]!.config.systemInstruction)).toContain(
      'A concierge served by Google ADK for JS over A2A.',
    );

    const second = await runner.run({ userId: 'u', sessionId, newMessage: 'And the spa?' });
    expect(second.output).toBe('Bonjour! Turn 2: you asked "And the spa?".');
  });
});

import { afterEach } from 'vitest';
import { InMemoryRunner, type BaseAgent, type Event, type RunConfig, type RunResult } from '@troupe/core';
import { ScriptedExecutor, type Script } from './scripted-executor.js';
import { startSdkServer, type SdkServer, type SdkServerOptions } from './sdk-server.js';

const servers: SdkServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** Starts an SDK server running `script`; it is closed after the test. */
export async function scriptedServer(
  script: Script,
  options: Omit<SdkServerOptions, 'executor'> = {},
): Promise<SdkServer & { executor: ScriptedExecutor }> {
  const executor = new ScriptedExecutor(script);
  const server = await startSdkServer({ ...options, executor });
  servers.push(server);
  return { ...server, executor };
}

/** An in-memory runner for `agent` with one session. */
export async function runnerFor(agent: BaseAgent) {
  const runner = new InMemoryRunner({ agent, appName: 'app' });
  const session = await runner.sessionService.createSession({ appName: 'app', userId: 'u' });
  const sessionId = session.id;
  const events = async () =>
    (await runner.sessionService.getSession({ appName: 'app', userId: 'u', sessionId }))!.events;
  return { runner, sessionId, events };
}

/** Runs a turn through runAsync, collecting every event (partial ones too) and the result. */
export async function collect(
  gen: AsyncGenerator<Event, RunResult, undefined>,
): Promise<{ events: Event[]; result: RunResult }> {
  const events: Event[] = [];
  for (;;) {
    const step = await gen.next();
    if (step.done) return { events, result: step.value };
    events.push(step.value);
  }
}

export const sse: RunConfig = { streaming: 'sse' };

/** Resolves once `check` holds, polling; fails after `ms` (bounded waits only). */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  ms = 5_000,
  what = 'the condition',
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${ms} ms waiting for ${what}.`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

import { fileURLToPath } from 'node:url';
import { ConfigurationError, InMemoryRunner, type BaseAgent, type Event, getFunctionResponses } from '@troupe/core';
import { expect } from 'vitest';

/** The absolute path of a skills fixture. */
export const fixture = (path: string): string => fileURLToPath(new URL(`./fixtures/${path}`, import.meta.url));

/** A runner over the agent with one fresh session. */
export async function sessionFor(agent: BaseAgent): Promise<{ runner: InMemoryRunner; sessionId: string }> {
  const runner = new InMemoryRunner({ agent });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  return { runner, sessionId: session.id };
}

/** The response a tool call got, by tool name, from a run's events. */
export function responseOf(events: readonly Event[], tool: string): Record<string, unknown> {
  for (const event of events) {
    for (const response of getFunctionResponses(event)) if (response.name === tool) return response.response;
  }
  throw new Error(`No response of tool '${tool}' in the run's events.`);
}

/** The ConfigurationError a promise rejects with. */
export async function configurationError(promise: Promise<unknown>): Promise<ConfigurationError> {
  const error: unknown = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ConfigurationError);
  return error as ConfigurationError;
}

import { fileURLToPath } from 'node:url';
import { InMemoryRunner, type BaseAgent, type BaseLlm, type RunResult } from '@troupe/core';

/** The absolute path of a definition fixture. */
export const fixture = (path: string): string => fileURLToPath(new URL(`./fixtures/${path}`, import.meta.url));

/** Runs one turn (a message or a structured input) on a fresh in-memory session. */
export async function runAgent(
  agent: BaseAgent,
  turn: { message?: string; input?: Record<string, unknown>; state?: Record<string, unknown>; defaultModel?: BaseLlm },
): Promise<RunResult> {
  const runner = new InMemoryRunner({ agent, ...(turn.defaultModel ? { defaultModel: turn.defaultModel } : {}) });
  const session = await runner.sessionService.createSession({
    appName: runner.appName,
    userId: 'u',
    ...(turn.state ? { state: turn.state } : {}),
  });
  return runner.run({
    userId: 'u',
    sessionId: session.id,
    ...(turn.message !== undefined ? { newMessage: turn.message } : {}),
    ...(turn.input ? { input: turn.input } : {}),
  });
}

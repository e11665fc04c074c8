import { join } from 'node:path';
import { Runner, type BaseAgent, type RunResult } from '@troupe/core';
import { SqliteSessionService } from '@troupe/sqlite';
import { tempDir } from '../temp-dir.js';

/**
 * A run that pauses for approval and is approved by a new runner, as a new process would: only
 * the SQLite file in a fresh temporary folder (`prefix`) is shared. Each step opens its own store
 * on the file, runs on a runner of app 'app' for user 'u', and closes the store before returning.
 */
export function acrossRunners(prefix: string): {
  /** Runs `newMessage` on `agent` in a new session. */
  run(agent: BaseAgent, newMessage: string): Promise<RunResult & { sessionId: string }>;
  /** Approves the first open interrupt of `paused` with `agent`, a newly built tree. */
  approve(agent: BaseAgent, paused: RunResult & { sessionId: string }): Promise<RunResult>;
} {
  const path = join(tempDir(prefix), 'sessions.db');
  return {
    async run(agent, newMessage) {
      const service = new SqliteSessionService({ path });
      const runner = new Runner({ appName: 'app', agent, sessionService: service });
      const session = await service.createSession({ appName: 'app', userId: 'u' });
      const result = await runner.run({ userId: 'u', sessionId: session.id, newMessage });
      await service.close();
      return { ...result, sessionId: session.id };
    },
    async approve(agent, paused) {
      const service = new SqliteSessionService({ path });
      const runner = new Runner({ appName: 'app', agent, sessionService: service });
      const resumed = await runner.resume({
        userId: 'u',
        sessionId: paused.sessionId,
        responses: { [paused.interrupts[0]!.id]: true },
      });
      await service.close();
      return resumed;
    },
  };
}

import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { Runner, getFunctionResponses } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { SqliteSessionService } from '@troupe/sqlite';
import { publishingRoom } from './fixtures/publishing-room.js';

const run = promisify(execFile);
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('group-chat example: an approval inside a participant', () => {
  it("pauses the chat in the Editor's turn; another node process continues that turn and ends the chat", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'troupe-group-chat-'));
    dirs.push(dir);
    const db = join(dir, 'newsroom.db');
    const sessionService = new SqliteSessionService({ path: db });
    const model = new ScriptedModel([
      'Fresh rye, baked at dawn.',
      { functionCalls: [{ name: 'publish', args: { text: 'Fresh rye, baked at dawn.' }, id: 'p1' }] },
    ]);
    const runner = new Runner({ appName: 'newsroom', agent: publishingRoom(), sessionService, defaultModel: model });
    const session = await sessionService.createSession({ appName: 'newsroom', userId: 'u' });
    const paused = await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'A line about our rye bread' });
    expect(paused.status).toBe('interrupted');
    model.assertDone();
    await sessionService.close();

    const worker = fileURLToPath(new URL('./fixtures/resume.ts', import.meta.url));
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', worker, db, session.id, paused.interrupts[0]!.id],
      { timeout: 60_000 },
    );
    const resumed = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
      status: string;
      output: unknown;
      pid: number;
      modelCalls: number;
    };
    expect(resumed.pid).not.toBe(process.pid);
    // One model call: the Editor's, after the approved publication. The Writer did not speak again.
    expect(resumed).toEqual({ status: 'completed', output: 'APPROVED: published.', pid: resumed.pid, modelCalls: 1 });

    const reread = new SqliteSessionService({ path: db });
    const events = (await reread.getSession({ appName: 'newsroom', userId: 'u', sessionId: session.id }))!.events;
    await reread.close();
    expect(
      events
        .flatMap(getFunctionResponses)
        .filter((r) => r.name === 'publish')
        .map((r) => r.response),
    ).toEqual([{ published: 'Fresh rye, baked at dawn.' }]);
    expect(events.at(-1)!.actions.agentState).toEqual({
      stopReason: 'terminated',
      turns: 2,
      speakers: ['Writer', 'Editor'],
    });
  });
});

import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SqliteSessionService } from '@troupe/sqlite';
import { tempDir, troupe } from './helpers.js';

const hello = fileURLToPath(new URL('./fixtures/hello.ts', import.meta.url));

describe('troupe run --compact-every', () => {
  it('stores a compaction every n turns of a session, summarised by the default model', async () => {
    const cwd = tempDir('troupe-cli-compaction-');
    for (const message of ['Hi, I am Ana.', 'I live in Porto.', 'What is my name?']) {
      const turn = await troupe(cwd, 'run', hello, '--session', 's1', '--compact-every', '2', '--input', message);
      expect(turn.code).toBe(0);
    }
    const store = new SqliteSessionService({ path: join(cwd, '.troupe/troupe.db') });
    const session = await store.getSession({ appName: 'hello', userId: 'user', sessionId: 's1' });
    await store.close();
    const compactions = session!.events.filter((e) => e.actions.compaction);
    // After turn 2 (two completed invocations); turn 3 is the first of the next window.
    expect(compactions).toHaveLength(1);
    const { compaction } = compactions[0]!.actions;
    expect(compaction!.summary.parts.length).toBeGreaterThan(0);
    const firstTwoTurns = session!.events.filter((e) => e.author === 'user' && e.content).slice(0, 2);
    expect(compaction!.startTimestamp).toBe(firstTwoTurns[0]!.timestamp);
    expect(session!.events.indexOf(compactions[0]!)).toBeLessThan(
      session!.events.findIndex((e) => e.content?.parts.some((p) => 'text' in p && p.text === 'What is my name?')),
    );
  });

  it('without the flag nothing is compacted', async () => {
    const cwd = tempDir('troupe-cli-compaction-');
    for (const message of ['one', 'two', 'three'])
      expect((await troupe(cwd, 'run', hello, '--session', 's1', '--input', message)).code).toBe(0);
    const store = new SqliteSessionService({ path: join(cwd, '.troupe/troupe.db') });
    const session = await store.getSession({ appName: 'hello', userId: 'user', sessionId: 's1' });
    await store.close();
    expect(session!.events.some((e) => e.actions.compaction)).toBe(false);
  });

  it.each([
    [['--compact-every', '0'], '--compact-every "0" is not valid; give a whole number of turns, at least 1'],
    [['--compact-every', '2.5'], '--compact-every "2.5" is not valid'],
    [['--compact-overlap', '1'], '--compact-overlap "1" needs --compact-every <n>'],
    [['--compact-every', '3', '--compact-overlap=-1'], '--compact-overlap "-1" is not valid'],
  ])('%j is refused as bad usage, naming the flag and the fix', async (flags, message) => {
    const cwd = tempDir('troupe-cli-compaction-');
    const result = await troupe(cwd, 'run', hello, '--memory', ...flags, '--input', 'hi');
    expect(result.code).toBe(2);
    expect(result.err).toContain(message);
  });

  it('the help of run, api and worker lists the flags', async () => {
    for (const command of ['run', 'api', 'worker']) {
      const result = await troupe(tmpdir(), command, '--help');
      expect(result.out).toContain('--compact-every <n>');
      expect(result.out).toContain('--compact-overlap <k>');
    }
  });
});

describe('compaction flags of the servers and workers', () => {
  it("troupe api/web and troupe worker pass them on as the runners' compaction", async () => {
    const { parseServeOptions } = await import('../src/commands/serve-options.js');
    const { parseWorkerOptions } = await import('../src/commands/worker-options.js');
    expect(parseServeOptions('api', ['agents', '--compact-every', '5', '--compact-overlap', '1']).compaction).toEqual({
      everyInvocations: 5,
      overlapInvocations: 1,
    });
    expect(parseServeOptions('web', ['agents']).compaction).toBeUndefined();
    expect(
      parseWorkerOptions(['agents', '--redis', 'redis://127.0.0.1:6379', '--compact-every', '5']).compaction,
    ).toEqual({ everyInvocations: 5 });
  });
});

import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { LlmAgent, Runner, workingMemoryStateKey, type WorkingMemoryOptions } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { SqliteSessionService } from '../src/index.js';
import { useTempDb } from './helpers.js';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../../../', import.meta.url));
const tempDb = useTempDb();

/** The agent both processes build, from the same options (only the SQLite file is shared). */
const workingMemory: WorkingMemoryOptions = {
  scope: 'user',
  schema: { type: 'object', properties: { name: { type: 'string' }, city: { type: 'string' } } },
};

/**
 * Runs in a separate `node` process, from the TypeScript sources (tsx, the `@troupe/source`
 * condition): one turn in which the model writes the user's working memory, then the store closes.
 */
const childScript = (path: string) => `
  const { LlmAgent, Runner } = await import('@troupe/core');
  const { ScriptedModel } = await import('@troupe/core/testing');
  const { SqliteSessionService } = await import('@troupe/sqlite');
  const model = new ScriptedModel([
    { functionCalls: [{ name: 'update_working_memory', args: { memory: { name: 'Ana', city: 'Lisbon' } } }] },
    'Nice to meet you, Ana.',
  ]);
  const agent = new LlmAgent({ name: 'assistant', model, workingMemory: ${JSON.stringify(workingMemory)} });
  const sessionService = new SqliteSessionService({ path: ${JSON.stringify(path)} });
  const runner = new Runner({ appName: 'app', agent, sessionService, autoCreateSession: true });
  const result = await runner.run({ userId: 'ana', sessionId: 'first', newMessage: 'I am Ana, from Lisbon.' });
  await sessionService.close();
  console.log(JSON.stringify({ status: result.status, pid: process.pid }));
`;

describe('working memory across processes on one SQLite file', () => {
  it('a record written in another node process is in the instruction of the next request, in a new session of the same user', async () => {
    const path = tempDb();
    // execFile's timeout kills the child by its pid if it hangs; a busy machine needs a while for tsx.
    const { stdout } = await run(
      process.execPath,
      ['--conditions=@troupe/source', '--import', 'tsx', '--input-type=module', '-e', childScript(path)],
      { cwd: repo, timeout: 60_000 },
    );
    const child = JSON.parse(stdout.trim().split('\n').at(-1)!) as { status: string; pid: number };
    expect(child.status).toBe('completed');
    expect(child.pid).not.toBe(process.pid);

    const sessionService = new SqliteSessionService({ path });
    try {
      const model = new ScriptedModel(['Hello again, Ana from Lisbon.', 'Hello, who are you?']);
      const agent = new LlmAgent({ name: 'assistant', model, workingMemory });
      const runner = new Runner({ appName: 'app', agent, sessionService, autoCreateSession: true });

      const again = await runner.run({ userId: 'ana', sessionId: 'second', newMessage: 'Do you remember me?' });
      expect(again.status).toBe('completed');
      const instruction = String(model.requests[0]?.config.systemInstruction);
      expect(instruction).toContain('<WORKING_MEMORY>');
      expect(instruction).toContain('"name": "Ana"');
      expect(instruction).toContain('"city": "Lisbon"');
      expect(again.state[workingMemoryStateKey('assistant', 'user')]).toEqual({ name: 'Ana', city: 'Lisbon' });

      await runner.run({ userId: 'bo', sessionId: 'third', newMessage: 'Do you remember me?' });
      expect(String(model.requests[1]?.config.systemInstruction)).not.toContain('Ana');
    } finally {
      await sessionService.close();
    }
  }, 90_000);
});

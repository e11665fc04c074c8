import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ExitCode } from '../src/index.js';
import { tempDir, troupe } from './helpers.js';

const hello = fileURLToPath(new URL('./fixtures/hello.ts', import.meta.url));

describe('troupe: messages that tell the user what to do', () => {
  it.each([
    ['gpt-4o', 'openai/gpt-4o'],
    ['opnai/gpt-4o', 'openai/gpt-4o'],
    ['anthropc/claude-sonnet-4-5', 'anthropic/claude-sonnet-4-5'],
    ['gemini-2.5-flsh', 'gemini-2.5-flash'],
    ['openai-respones/gpt-5-mini', 'openai-responses/gpt-5-mini'],
  ])('--model %s: did you mean `%s`?', async (typed, meant) => {
    const result = await troupe(tempDir('troupe-msg-'), 'run', hello, '--model', typed, '--input', 'hi');
    expect(result.code).toBe(ExitCode.usage);
    expect(result.err).toContain(`--model "${typed}" is not a model name troupe knows: did you mean \`${meant}\`?`);
  });

  it('--judge-model gets the same hint', async () => {
    const evalAgent = fileURLToPath(new URL('./fixtures/eval-agent', import.meta.url));
    const result = await troupe(
      tempDir('troupe-msg-'),
      'eval',
      evalAgent,
      `${evalAgent}/weather.evalset.json`,
      '--judge-model',
      'gpt-4o-mini',
    );
    expect(result.code).toBe(ExitCode.usage);
    expect(result.err).toContain('did you mean `openai/gpt-4o-mini`?');
  });

  it('--session with an id that does not exist says it starts a new session (and continues it the next time silently)', async () => {
    const cwd = tempDir('troupe-msg-');
    const first = await troupe(cwd, 'run', hello, '--session', 'trip-1', '--input', 'hi');
    expect(first.code).toBe(ExitCode.ok);
    expect(first.err).toContain(
      `troupe: new session trip-1: app 'hello' has no session 'trip-1' for user 'user' in ${cwd}/.troupe/troupe.db. To continue an existing one, check --session, --user and --db.`,
    );
    const second = await troupe(cwd, 'run', hello, '--session', 'trip-1', '--input', 'again');
    expect(second.err).not.toContain('new session');
  });
});

import { describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  FunctionAgent,
  FunctionTool,
  InMemoryRunner,
  LlmAgent,
  type BaseAgent,
  type RunnerOptions,
} from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';

// Errors stored in a session are readable by every client of the app: they must not carry secrets.

async function runAndStore(agent: BaseAgent, options: Partial<RunnerOptions> = {}): Promise<string> {
  const runner = new InMemoryRunner({ agent, ...options });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'go' });
  const stored = await runner.sessionService.getSession({
    appName: runner.appName,
    userId: 'u',
    sessionId: session.id,
  });
  return JSON.stringify(stored!.events);
}

describe('secrets in stored errors', () => {
  it("a tool error carrying a Bearer token is stored masked in the tool's error response", async () => {
    const fetcher = new FunctionTool({
      name: 'fetch_page',
      description: 'Fetches.',
      execute: () => {
        throw new Error('GET https://api.example.com/v1 failed: 401 for Authorization: Bearer abc123def456ghi789jkl');
      },
    });
    const model = new ScriptedModel([{ functionCalls: [{ name: 'fetch_page', args: {} }] }, 'Could not fetch.']);
    const stored = await runAndStore(new LlmAgent({ name: 'A', model, tools: [fetcher] }));
    expect(stored).not.toContain('abc123def456ghi789jkl');
    expect(stored).toContain('failed: 401 for Authorization: Bearer ***');
    // The model saw the masked text too.
    expect(JSON.stringify(model.requests[1]!.contents)).not.toContain('abc123def456ghi789jkl');
  });

  it("a failed run's error event masks URL passwords, API keys and the runner's configured secrets", async () => {
    const agent = new FunctionAgent({
      name: 'loader',
      run: () => {
        throw new Error(
          'cannot open postgres://app:hunter2hunter2@db:5432/app with key sk-ant-api03-Zy1xWv2uTs3rQp4oNm5l (tenant opaque-tenant-pass)',
        );
      },
    });
    const stored = await runAndStore(agent, { secrets: ['opaque-tenant-pass'] });
    for (const secret of ['hunter2hunter2', 'Zy1xWv2uTs3rQp4oNm5l', 'opaque-tenant-pass'])
      expect(stored).not.toContain(secret);
    expect(stored).toContain('cannot open postgres://app:***@db:5432/app with key sk-ant-*** (tenant ***)');
  });

  it('rejects an unusable secret in the Runner options without showing it', () => {
    const agent = new FunctionAgent({ name: 'a', run: () => 'ok' });
    expect(() => new InMemoryRunner({ agent, secrets: ['abc'] })).toThrow(ConfigurationError);
    expect(() => new InMemoryRunner({ agent, secrets: ['abc'] })).toThrow(
      "Runner for app 'InMemoryRunner': 'secrets[0]' has 3 characters; a secret needs at least 4",
    );
  });
});

import { InMemoryRunner, LlmAgent, ModelError, resolveModel } from '@troupe/core';
import { modelAdapterContract } from '@troupe/core/testing/contracts';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EchoLlm } from './echo-llm.js';
import { EchoServer } from './echo-server.js';

modelAdapterContract('EchoLlm', async () => {
  const server = await EchoServer.start();
  return {
    model: new EchoLlm('echo-1', { baseURL: server.url, apiKey: 'echo-test-key', retry: false }),
    reply: (turn) => server.next(turn),
    received: () => server.lastRequest(),
    close: () => server.close(),
  };
});

describe('EchoLlm beyond the contract', () => {
  let server: EchoServer;
  beforeEach(async () => {
    server = await EchoServer.start();
  });
  afterEach(async () => {
    await server.close();
  });

  it("is registered under 'echo/' by importing the module", () => {
    const model = resolveModel('echo/echo-2');
    expect(model).toBeInstanceOf(EchoLlm);
    expect(model.model).toBe('echo-2');
  });

  it('retries a 503 with the shared retry policy, then answers an agent', async () => {
    server.next({ error: { status: 503, message: 'Busy.' } });
    server.next({ text: 'Hello from Echo.' });
    const model = new EchoLlm('echo-1', {
      baseURL: server.url,
      apiKey: 'echo-test-key',
      retry: { initialDelayMs: 1, jitter: false },
    });
    const runner = new InMemoryRunner({ agent: new LlmAgent({ name: 'greeter', model, instruction: 'Greet.' }) });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const result = await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'Hi' });
    expect(result.status).toBe('completed');
    expect(result.output).toBe('Hello from Echo.');
  });

  it('masks the API key when the provider echoes it in an error', async () => {
    server.next({ error: { status: 401, message: 'Key echo-secret-123 is not valid.' } });
    const model = new EchoLlm('echo-1', { baseURL: server.url, apiKey: 'echo-secret-123', retry: false });
    const failure = await model
      .generateContentAsync({ model: 'echo-1', contents: [{ role: 'user', parts: [{ text: 'Hi' }] }], config: {} })
      .next()
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ModelError);
    expect((failure as ModelError).message).not.toContain('echo-secret-123');
    expect((failure as ModelError).message).toContain('Check the API key (ECHO_API_KEY or the apiKey option).');
  });
});

import { describe, expect, it } from 'vitest';
import {
  AddSessionToMemoryPlugin,
  ConfigurationError,
  EmbeddingError,
  InMemoryMemoryService,
  InMemorySessionService,
  LlmAgent,
  Runner,
  createEvent,
  type Session,
} from '@troupe/core';
import { FakeEmbedder, ScriptedModel } from '@troupe/core/testing';

// An embedding provider that fails while a session is indexed must never fail the user's run: the
// text is stored, the vectors wait for the next add, and the failure is told (issue #32).

const APP = 'assistant';

function said(id: string, text: string): Session {
  return {
    id,
    appName: APP,
    userId: 'ana',
    state: {},
    lastUpdateTime: 0,
    version: 1,
    events: [createEvent({ author: 'user', content: { role: 'user', parts: [{ text }] } })],
  };
}

/** Runs one turn through `runAsync` (the stream a server or CLI reads) and answers its events' authors. */
async function turn(runner: Runner, sessionService: InMemorySessionService, text: string): Promise<string[]> {
  const session = await sessionService.createSession({ appName: APP, userId: 'ana' });
  const authors: string[] = [];
  for await (const event of runner.runAsync({ userId: 'ana', sessionId: session.id, newMessage: text }))
    authors.push(event.author);
  return authors;
}

function assistant(memoryService: InMemoryMemoryService, plugin: AddSessionToMemoryPlugin) {
  const sessionService = new InMemorySessionService();
  const runner = new Runner({
    appName: APP,
    agent: new LlmAgent({ name: 'assistant', model: new ScriptedModel(['Noted.', 'Noted again.']) }),
    sessionService,
    memoryService,
    plugins: [plugin],
  });
  return { runner, sessionService };
}

const ask = (memory: InMemoryMemoryService, query: string, mode: 'keyword' | 'vector') =>
  memory.searchMemory({ appName: APP, userId: 'ana', query, mode });

describe('embedding failures during indexing', () => {
  it('an add rejects with an EmbeddingError naming the model and the cause, after storing the text', async () => {
    const embedder = new FakeEmbedder();
    const memory = new InMemoryMemoryService({ embedder });
    const outage = new Error('503 Service Unavailable');
    embedder.failNext(1, outage);

    const failed = await memory.addSessionToMemory(said('s1', 'My favourite city is Lisbon.')).catch((e) => e);
    expect(failed).toBeInstanceOf(EmbeddingError);
    expect(failed).toMatchObject({ code: 'EMBEDDING_FAILED', modelId: 'fake-64', texts: 1, cause: outage });
    expect(failed.message).toBe("Embedding model 'fake-64' failed to embed 1 text: 503 Service Unavailable");
    expect((await ask(memory, 'Lisbon', 'keyword')).memories).toHaveLength(1);
    expect((await ask(memory, 'Which town do I like?', 'vector')).memories).toHaveLength(0);

    const before = embedder.embedded.length;
    await memory.addSessionToMemory(said('s2', 'My car is red.'));
    expect(embedder.embedded.slice(before)).toEqual(['My favourite city is Lisbon.', 'My car is red.']);
    expect((await ask(memory, 'Which town do I like?', 'vector')).memories).toHaveLength(1);
  });

  it('the plugin tells onError and the run completes, streaming every event', async () => {
    const embedder = new FakeEmbedder();
    const errors: unknown[] = [];
    const memory = new InMemoryMemoryService({ embedder });
    const { runner, sessionService } = assistant(
      memory,
      new AddSessionToMemoryPlugin({ onError: (error) => errors.push(error) }),
    );
    embedder.failNext(1);

    expect(await turn(runner, sessionService, 'My favourite city is Lisbon.')).toEqual(['assistant']);
    expect(errors).toEqual([expect.any(EmbeddingError)]);
    expect((await ask(memory, 'Lisbon', 'keyword')).memories).toHaveLength(1);
  });

  it('without onError the plugin does not fail the run: the failure becomes a process warning', async () => {
    const embedder = new FakeEmbedder();
    const memory = new InMemoryMemoryService({ embedder });
    const { runner, sessionService } = assistant(memory, new AddSessionToMemoryPlugin());
    const warned = new Promise<Error>((resolve) => {
      const listener = (warning: Error) => {
        if (warning.name !== 'EmbeddingError') return;
        process.off('warning', listener);
        resolve(warning);
      };
      process.on('warning', listener);
    });
    embedder.failNext(1);

    expect(await turn(runner, sessionService, 'My favourite city is Lisbon.')).toEqual(['assistant']);
    const warning = await warned;
    expect(warning).toMatchObject({ name: 'EmbeddingError', code: 'EMBEDDING_FAILED' });
    expect(warning.message).toMatch(/added to memory without its vectors.*unavailable/);

    // The next run's add embeds what the failed one left.
    expect(await turn(runner, sessionService, 'I have a dog.')).toEqual(['assistant']);
    expect((await ask(memory, 'Which town do I like?', 'vector')).memories).toHaveLength(1);
  });

  it('an embedder returning vectors of another size is a ConfigurationError, not a provider failure', async () => {
    const wrong = {
      dimensions: 8,
      modelId: 'tiny',
      embed: async (texts: string[]) => texts.map(() => [1, 0, 0]),
    };
    const memory = new InMemoryMemoryService({ embedder: wrong });
    const failed = memory.addSessionToMemory(said('s1', 'Hello.'));
    await expect(failed).rejects.toThrow(ConfigurationError);
    await expect(memory.addSessionToMemory(said('s1', 'Hello.'))).rejects.toThrow(
      /'tiny' says it makes vectors of 8 dimensions but returned one of 3/,
    );
  });

  it('a search cancelled by its signal gets the abort, not an EmbeddingError', async () => {
    const embedder = new FakeEmbedder();
    const memory = new InMemoryMemoryService({ embedder });
    await memory.addSessionToMemory(said('s1', 'My favourite city is Lisbon.'));
    const { embedTexts } = await import('@troupe/core/stores');
    const controller = new AbortController();
    controller.abort(new Error('user left'));
    await expect(embedTexts(embedder, ['town'], { signal: controller.signal })).rejects.toThrow('user left');
  });
});

import { describe, expect, it } from 'vitest';
import { ConfigurationError, InMemoryMemoryService, createEvent, type Session } from '@troupe/core';
import { FakeEmbedder } from '@troupe/core/testing';
import { memoryServiceContract, semanticMemoryContract } from '@troupe/core/testing/contracts';

// In-memory storage belongs to one instance, so there is no second instance over the same storage.
memoryServiceContract('InMemoryMemoryService', async () => ({ service: new InMemoryMemoryService() }), {
  incremental: true,
});
semanticMemoryContract('InMemoryMemoryService', async ({ embedder, onError }) => ({
  service: new InMemoryMemoryService({ embedder, ...(onError ? { onError } : {}) }),
}));

describe('InMemoryMemoryService options', () => {
  const session = (texts: string[]): Session => ({
    id: 's1',
    appName: 'app',
    userId: 'u1',
    state: {},
    events: texts.map((text) => createEvent({ author: 'user', content: { role: 'user', parts: [{ text }] } })),
    lastUpdateTime: 0,
    version: 0,
  });

  it('maxResults caps what one search returns', async () => {
    const service = new InMemoryMemoryService({ maxResults: 2 });
    await service.addSessionToMemory(session(['plum one', 'plum two', 'plum three']));
    expect((await service.searchMemory({ appName: 'app', userId: 'u1', query: 'plum' })).memories).toHaveLength(2);
  });

  it('rejects a maxResults that is not a whole number ≥ 1, naming the option and the value', () => {
    expect(() => new InMemoryMemoryService({ maxResults: 0 })).toThrow(ConfigurationError);
    expect(() => new InMemoryMemoryService({ maxResults: 2.5 })).toThrow(
      /'maxResults' must be a whole number ≥ 1; got number 2.5/,
    );
  });

  it('returns copies: changing a found memory does not change what is stored', async () => {
    const service = new InMemoryMemoryService();
    await service.addSessionToMemory(session(['the pear tree']));
    const [found] = (await service.searchMemory({ appName: 'app', userId: 'u1', query: 'pear' })).memories;
    found!.content.parts.length = 0;
    const [again] = (await service.searchMemory({ appName: 'app', userId: 'u1', query: 'pear' })).memories;
    expect(again!.content.parts).toEqual([{ text: 'the pear tree' }]);
  });

  it('an embedder is checked when the service is made; reindex() needs one', async () => {
    expect(() => new InMemoryMemoryService({ embedder: {} as never })).toThrow(
      /option 'embedder' must be an EmbeddingModel/,
    );
    await expect(new InMemoryMemoryService().reindex()).rejects.toThrow(
      /reindex\(\) re-embeds memories, which needs an embedder/,
    );
  });

  it('reindex() re-embeds every stored memory with the embedder', async () => {
    const embedder = new FakeEmbedder();
    const service = new InMemoryMemoryService({ embedder });
    await service.addSessionToMemory(session(['the pear tree', 'my favourite town']));
    expect(await service.reindex()).toEqual({ memories: 2 });
    expect(embedder.embedded).toEqual(['the pear tree', 'my favourite town', 'the pear tree', 'my favourite town']);
  });
});

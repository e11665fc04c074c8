import { describe, expect, it } from 'vitest';
import { ConfigurationError, InMemoryMemoryService, createEvent, type Session } from '@troupe/core';
import { memoryServiceContract } from '@troupe/core/testing/contracts';

// In-memory storage belongs to one instance, so there is no second instance over the same storage.
memoryServiceContract('InMemoryMemoryService', async () => ({ service: new InMemoryMemoryService() }), {
  incremental: true,
});

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
});

import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { ConfigurationError, createEvent, LlmAgent, preloadMemoryTool, Runner, type Session } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { memoryServiceContract } from '@troupe/core/testing/contracts';
import { SCHEMA_VERSION, SqliteMemoryService, SqliteSessionService, StorageError } from '../src/index.js';
import { openOnFreshFile, reopenOnPath, withTempFile } from './helpers.js';

// A fresh file per test; the second instance opens the same file through its own connection.
const openFresh = () =>
  openOnFreshFile('troupe-sqlite-memory-', 'memory.db', (path) => new SqliteMemoryService({ path }));

memoryServiceContract('SqliteMemoryService', openFresh, {
  openSecond: reopenOnPath((path) => new SqliteMemoryService({ path })),
  incremental: true,
});

/** Session 's' of app/u, holding one user event that says `text`. */
function userSaid(text: string): Session {
  return {
    id: 's',
    appName: 'app',
    userId: 'u',
    state: {},
    events: [createEvent({ author: 'user', content: { role: 'user', parts: [{ text }] } })],
    lastUpdateTime: 0,
    version: 1,
  };
}

describe('SqliteMemoryService', () => {
  it('shares a file with SqliteSessionService: sessions stored there go into memory, the session schema is untouched, and memory survives reopening', async () => {
    await withTempFile('troupe-sqlite-memory-', 'troupe.db', async (path) => {
      const sessions = new SqliteSessionService({ path });
      const memory = new SqliteMemoryService({ path });
      const session = await sessions.createSession({ appName: 'app', userId: 'u1' });
      await sessions.appendEvent({
        session,
        event: createEvent({
          author: 'user',
          content: { role: 'user', parts: [{ text: 'My favourite tree is the olive.' }] },
        }),
      });
      await memory.addSessionToMemory(
        (await sessions.getSession({ appName: 'app', userId: 'u1', sessionId: session.id }))!,
      );
      await memory.close();
      await sessions.close();

      const reopenedSessions = new SqliteSessionService({ path });
      const reopened = new SqliteMemoryService({ path });
      const { memories } = await reopened.searchMemory({ appName: 'app', userId: 'u1', query: 'olive' });
      expect(memories.map((m) => m.content)).toEqual([
        { role: 'user', parts: [{ text: 'My favourite tree is the olive.' }] },
      ]);
      expect(await reopenedSessions.getSession({ appName: 'app', userId: 'u1', sessionId: session.id })).toBeDefined();
      expect(SCHEMA_VERSION).toBeGreaterThan(0);
      await reopened.close();
      await reopenedSessions.close();
    });
  });

  it('finds a word without its accents (FTS5 unicode61 folds them)', async () => {
    const { service, close } = await openFresh();
    try {
      const session = userSaid('Un café crème');
      await service.addSessionToMemory(session);
      expect((await service.searchMemory({ appName: 'app', userId: 'u', query: 'cafe' })).memories).toHaveLength(1);
    } finally {
      await close();
    }
  });

  it("remembers across runners over one file: a second runner's preloadMemoryTool sees the first session", async () => {
    await withTempFile('troupe-sqlite-memory-', 'troupe.db', async (path) => {
      const open = (model: ScriptedModel) => {
        const sessionService = new SqliteSessionService({ path });
        const memoryService = new SqliteMemoryService({ path });
        const runner = new Runner({
          appName: 'app',
          agent: new LlmAgent({ name: 'helper', model, tools: [preloadMemoryTool] }),
          sessionService,
          memoryService,
        });
        return { runner, sessionService, memoryService };
      };
      const first = open(new ScriptedModel(['Noted.']));
      const session = await first.sessionService.createSession({ appName: 'app', userId: 'u1' });
      await first.runner.run({ userId: 'u1', sessionId: session.id, newMessage: 'My favourite tree is the olive.' });
      await first.memoryService.addSessionToMemory(
        (await first.sessionService.getSession({ appName: 'app', userId: 'u1', sessionId: session.id }))!,
      );
      await first.memoryService.close();
      await first.sessionService.close();

      const model = new ScriptedModel(['The olive.']);
      const second = open(model);
      const next = await second.sessionService.createSession({ appName: 'app', userId: 'u1' });
      await second.runner.run({ userId: 'u1', sessionId: next.id, newMessage: 'Which tree is my favourite?' });
      expect(model.requests[0]!.config.systemInstruction).toContain('user: My favourite tree is the olive.');
      await second.memoryService.close();
      await second.sessionService.close();
    });
  });

  it('readonly: searches a file another service wrote, refuses to add (StorageError), and refuses a file without memory tables', async () => {
    const { service, path, close } = await openFresh();
    try {
      const session = userSaid('The gate code is 1234.');
      await service.addSessionToMemory(session);
      const reader = new SqliteMemoryService({ path, readonly: true });
      expect((await reader.searchMemory({ appName: 'app', userId: 'u', query: 'gate code' })).memories).toHaveLength(1);
      await expect(reader.addSessionToMemory(session)).rejects.toThrow(StorageError);
      await reader.close();

      const sessionsOnly = join(path, '..', 'sessions-only.db');
      await new SqliteSessionService({ path: sessionsOnly }).close();
      expect(() => new SqliteMemoryService({ path: sessionsOnly, readonly: true })).toThrow(
        /has no memory tables yet.*Open it once without readonly/,
      );
    } finally {
      await close();
    }
  });

  it('a file from before memory_progress gets the table on open; its sessions are indexed whole once, then turn by turn', async () => {
    await withTempFile('troupe-sqlite-memory-', 'old.db', async (path) => {
      const first = userSaid('The shed key is under the pot.');
      const memory = new SqliteMemoryService({ path });
      await memory.addSessionToMemory(first);
      await memory.close();
      // The file as an older Troupe left it: memories, no progress table.
      const raw = new Database(path);
      raw.exec('DROP TABLE memory_progress');
      raw.close();

      const reader = new SqliteMemoryService({ path, readonly: true });
      expect((await reader.searchMemory({ appName: 'app', userId: 'u', query: 'shed' })).memories).toHaveLength(1);
      await expect(reader.addSessionToMemory(first)).rejects.toThrow(StorageError);
      await reader.close();

      const reopened = new SqliteMemoryService({ path });
      const grown = {
        ...first,
        events: [
          ...first.events,
          createEvent({ author: 'user', content: { role: 'user', parts: [{ text: 'The shed is blue.' }] } }),
        ],
      };
      await reopened.addSessionToMemory(grown);
      await reopened.addSessionToMemory(grown);
      const { memories } = await reopened.searchMemory({ appName: 'app', userId: 'u', query: 'shed' });
      expect(memories.map((m) => m.content.parts)).toEqual(
        expect.arrayContaining([[{ text: 'The shed key is under the pot.' }], [{ text: 'The shed is blue.' }]]),
      );
      expect(memories).toHaveLength(2);
      await reopened.close();
    });
  });

  it("after an older Troupe replaced a session's memories without recording progress, the next add indexes it whole", async () => {
    await withTempFile('troupe-sqlite-memory-', 'shared.db', async (path) => {
      const memory = new SqliteMemoryService({ path });
      const first = userSaid('The kayak is green.');
      const said = (text: string) => createEvent({ author: 'user', content: { role: 'user', parts: [{ text }] } });
      const second = said('The kayak is stored in the barn.');
      const grown = { ...first, events: [...first.events, second, said('The kayak needs a new paddle.')] };
      await memory.addSessionToMemory(first);
      // What an older version's add of the first two turns did: replace the rows, leave progress alone.
      const raw = new Database(path);
      const scope = raw.prepare<[], { scope: string }>('SELECT scope FROM memories_fts LIMIT 1').get()!.scope;
      raw.exec('DELETE FROM memories_fts; DELETE FROM memories;');
      for (const event of [first.events[0]!, second]) {
        const { lastInsertRowid } = raw
          .prepare(
            'INSERT INTO memories (app_name, user_id, session_id, author, timestamp, content) VALUES (?, ?, ?, ?, ?, ?)',
          )
          .run('app', 'u', 's', 'user', event.timestamp, JSON.stringify(event.content));
        const text = (event.content!.parts[0] as { text: string }).text;
        raw
          .prepare('INSERT INTO memories_fts (rowid, words, scope) VALUES (?, ?, ?)')
          .run(lastInsertRowid, text.toLowerCase().replace(/[^a-z ]/g, ''), scope);
      }
      raw.close();

      await memory.addSessionToMemory(grown);
      const { memories } = await memory.searchMemory({ appName: 'app', userId: 'u', query: 'kayak' });
      expect(memories.map((m) => m.content.parts[0])).toEqual(
        expect.arrayContaining([
          { text: 'The kayak is green.' },
          { text: 'The kayak is stored in the barn.' },
          { text: 'The kayak needs a new paddle.' },
        ]),
      );
      expect(memories).toHaveLength(3);
      await memory.close();
    });
  });

  it('rejects bad options and use after close with a ConfigurationError', async () => {
    expect(() => new SqliteMemoryService({ path: '' })).toThrow(/SqliteMemoryService option 'path'/);
    expect(() => new SqliteMemoryService({ path: ':memory:', maxResults: -1 })).toThrow(
      /'maxResults' must be a whole number/,
    );
    const service = new SqliteMemoryService({ path: ':memory:' });
    await service.close();
    await expect(service.searchMemory({ appName: 'a', userId: 'u', query: 'x' })).rejects.toThrow(ConfigurationError);
  });
});

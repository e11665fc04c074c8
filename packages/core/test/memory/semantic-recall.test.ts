import { describe, expect, it } from 'vitest';
import {
  AddSessionToMemoryPlugin,
  ConfigurationError,
  getFunctionResponses,
  InMemoryMemoryService,
  InMemorySessionService,
  LlmAgent,
  LoadMemoryTool,
  PreloadMemoryTool,
  Runner,
  type BaseTool,
  type MemorySearchMode,
} from '@troupe/core';
import { FakeEmbedder, ScriptedModel } from '@troupe/core/testing';

// The case users pick semantic memory for: told "my favourite city is Lisbon" in one session, the
// assistant is asked "which town do I like?" in another. No word is shared; the meaning is.

async function remembered(tool: BaseTool, replies: ConstructorParameters<typeof ScriptedModel>[0], asker = 'u1') {
  const embedder = new FakeEmbedder();
  const memoryService = new InMemoryMemoryService({ embedder });
  const sessionService = new InMemorySessionService();
  const model = new ScriptedModel(['Noted.', ...replies]);
  const runner = new Runner({
    appName: 'assistant',
    agent: new LlmAgent({ name: 'assistant', model, tools: [tool] }),
    sessionService,
    memoryService,
    plugins: [new AddSessionToMemoryPlugin()],
  });
  const first = await sessionService.createSession({ appName: 'assistant', userId: 'u1' });
  await runner.run({ userId: 'u1', sessionId: first.id, newMessage: 'My favourite city is Lisbon.' });
  const second = await sessionService.createSession({ appName: 'assistant', userId: asker });
  const result = await runner.run({ userId: asker, sessionId: second.id, newMessage: 'Which town do I like?' });
  return { result, model, embedder };
}

const recalled = (result: Awaited<ReturnType<typeof remembered>>['result']) =>
  JSON.stringify(result.events.flatMap((e) => getFunctionResponses(e)).map((r) => r.response));

describe('semantic recall through a Runner', () => {
  const ask = { functionCalls: [{ name: 'load_memory', args: { query: 'which town do I like?' } }] };

  it.each(['vector', 'hybrid'] as const)(
    'load_memory in %s mode recalls Lisbon for "which town do I like?"',
    async (mode) => {
      const { result } = await remembered(new LoadMemoryTool({ mode }), [ask, 'You like Lisbon.']);
      expect(result.status).toBe('completed');
      expect(recalled(result)).toContain('My favourite city is Lisbon.');
    },
  );

  it('load_memory in keyword mode does not: no word is shared', async () => {
    const { result } = await remembered(new LoadMemoryTool({ mode: 'keyword' }), [ask, 'I do not know.']);
    expect(recalled(result)).toBe('[{"memories":[]}]');
  });

  it("another user's question recalls nothing of it", async () => {
    const { result } = await remembered(new LoadMemoryTool({ mode: 'vector' }), [ask, 'I do not know.'], 'u2');
    expect(recalled(result)).not.toContain('Lisbon');
  });

  it('preload_memory in hybrid mode puts it in the instruction before the model answers', async () => {
    const { model } = await remembered(new PreloadMemoryTool({ mode: 'hybrid', limit: 1 }), ['You like Lisbon.']);
    const instruction = model.requests.at(-1)!.config.systemInstruction ?? '';
    expect(instruction).toMatch(
      /<PAST_CONVERSATIONS>\n(Time: .*\n)?user: My favourite city is Lisbon\.\n<\/PAST_CONVERSATIONS>/,
    );
  });

  it('only the new turns are embedded after each run', async () => {
    const { embedder } = await remembered(new LoadMemoryTool({ mode: 'vector' }), [ask, 'You like Lisbon.']);
    // Run 1: its two turns. Run 2: the query, then its own turns (the function call and response carry no text).
    expect(embedder.embedded).toEqual([
      'My favourite city is Lisbon.',
      'Noted.',
      'which town do I like?',
      'Which town do I like?',
      'You like Lisbon.',
    ]);
  });

  it('a memory tool with a mode or limit it cannot use is refused when it is made', () => {
    expect(() => new LoadMemoryTool({ mode: 'semantic' as MemorySearchMode })).toThrow(ConfigurationError);
    expect(() => new LoadMemoryTool({ mode: 'semantic' as MemorySearchMode })).toThrow(
      /LoadMemoryTool option 'mode' must be 'keyword', 'vector' or 'hybrid'; got "semantic"/,
    );
    expect(() => new PreloadMemoryTool({ limit: 0 })).toThrow(
      /PreloadMemoryTool option 'limit' must be a whole number ≥ 1/,
    );
  });
});

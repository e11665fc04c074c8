import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  FunctionTool,
  InMemoryMemoryService,
  InMemorySessionService,
  LlmAgent,
  Runner,
  getFunctionResponses,
  loadAgent,
  loadMemoryTool,
  preloadMemoryTool,
  type BaseAgent,
  type LlmRequest,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { z } from 'zod';

/** A runner with memory; `remember` runs one turn in a fresh session and adds that session to memory. */
async function setUp(agent: BaseAgent, withMemory = true) {
  const sessionService = new InMemorySessionService();
  const memoryService = new InMemoryMemoryService();
  const runner = new Runner({ appName: 'assistant', agent, sessionService, ...(withMemory ? { memoryService } : {}) });
  const run = async (userId: string, newMessage: string) => {
    const session = await sessionService.createSession({ appName: 'assistant', userId });
    const result = await runner.run({ userId, sessionId: session.id, newMessage });
    return { result, sessionId: session.id };
  };
  const remember = async (userId: string, newMessage: string) => {
    const { result, sessionId } = await run(userId, newMessage);
    expect(result.status).toBe('completed');
    await memoryService.addSessionToMemory(
      (await sessionService.getSession({ appName: 'assistant', userId, sessionId }))!,
    );
  };
  return { runner, run, remember, memoryService };
}

const functionResponsesOf = (request: LlmRequest) =>
  request.contents.flatMap((content) =>
    content.parts.flatMap((part) => ('functionResponse' in part ? [part.functionResponse] : [])),
  );

describe('loadMemoryTool', () => {
  it('the model searches with a query and gets the memories of an earlier session of the same user', async () => {
    const model = new ScriptedModel([
      'Noted: your favourite city is Lisbon.',
      { functionCalls: [{ name: 'load_memory', args: { query: 'favourite city' } }] },
      'Your favourite city is Lisbon.',
    ]);
    const { run, remember } = await setUp(new LlmAgent({ name: 'helper', model, tools: [loadMemoryTool] }));

    await remember('alice', 'My favourite city is Lisbon.');
    const { result } = await run('alice', 'Which city do I like best?');

    expect(result.output).toBe('Your favourite city is Lisbon.');
    const [first, second, third] = model.requests;
    expect(first!.config.tools?.map((t) => t.name)).toEqual(['load_memory']);
    expect(first!.config.tools?.[0]?.parameters).toEqual({
      type: 'object',
      properties: { query: { type: 'string', description: expect.any(String) } },
      required: ['query'],
    });
    expect(second!.config.systemInstruction).toContain('call the load_memory function');
    const [response] = functionResponsesOf(third!);
    expect(response!.name).toBe('load_memory');
    const memories = (response!.response as { memories: { content: string; author: string; timestamp: string }[] })
      .memories;
    expect(memories).toHaveLength(2);
    expect(memories.find((m) => m.author === 'user')).toEqual({
      content: 'My favourite city is Lisbon.',
      author: 'user',
      timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(memories.find((m) => m.author === 'helper')?.content).toBe('Noted: your favourite city is Lisbon.');
  });

  it("never returns another user's memories", async () => {
    const model = new ScriptedModel([
      'Noted.',
      { functionCalls: [{ name: 'load_memory', args: { query: 'favourite city' } }] },
      'I do not know.',
    ]);
    const { run, remember } = await setUp(new LlmAgent({ name: 'helper', model, tools: [loadMemoryTool] }));

    await remember('alice', 'My favourite city is Lisbon.');
    await run('bob', 'Which city do I like best?');

    const [response] = functionResponsesOf(model.requests[2]!);
    expect(response!.response).toEqual({ memories: [] });
    expect(JSON.stringify(model.requests.slice(1))).not.toContain('Lisbon');
  });

  it('a call without a string query gets an error response, and the model can try again', async () => {
    const model = new ScriptedModel([{ functionCalls: [{ name: 'load_memory', args: { q: 'city' } }] }, 'Sorry.']);
    const { run } = await setUp(new LlmAgent({ name: 'helper', model, tools: [loadMemoryTool] }));

    const { result } = await run('alice', 'hi');
    const response = result.events.flatMap(getFunctionResponses)[0]!;
    expect(response.response.error).toMatch(/load_memory takes \{ query: string \}/);
  });

  it('without a memory service the run fails with a ConfigurationError naming Runner({ memoryService })', async () => {
    const model = new ScriptedModel([]);
    const { run } = await setUp(new LlmAgent({ name: 'helper', model, tools: [loadMemoryTool] }), false);

    const { result } = await run('alice', 'hi');
    expect(result.status).toBe('failed');
    expect(result.error).toBeInstanceOf(ConfigurationError);
    expect(String(result.error)).toMatch(
      /Tool 'load_memory' of agent 'helper' needs a memory service.*memoryService: new InMemoryMemoryService\(\)/,
    );
  });
});

describe('preloadMemoryTool', () => {
  it("adds the memories matching the user's message to every model request's system instruction, and is not offered to the model", async () => {
    const lookup = new FunctionTool({
      name: 'lookup',
      description: 'Looks up.',
      parameters: z.object({}),
      execute: () => ({ ok: true }),
    });
    const model = new ScriptedModel([
      'Noted: Lisbon is a lovely city.',
      { functionCalls: [{ name: 'lookup' }] },
      'Your favourite city is Lisbon.',
    ]);
    const { run, remember } = await setUp(
      new LlmAgent({ name: 'helper', model, instruction: 'Be brief.', tools: [preloadMemoryTool, lookup] }),
    );

    await remember('alice', 'My favourite city is Lisbon.');
    expect(model.requests[0]!.config.systemInstruction).toBe('Be brief.');
    await run('alice', 'What is my favourite city?');

    for (const request of model.requests.slice(1)) {
      const system = request.config.systemInstruction!;
      expect(system.startsWith('Be brief.\n\n')).toBe(true);
      expect(system).toContain('<PAST_CONVERSATIONS>');
      expect(system).toMatch(/Time: \d{4}-\d\d-\d\dT[^\n]*\nuser: My favourite city is Lisbon\./);
      expect(system).toContain('helper: Noted: Lisbon is a lovely city.');
      expect(request.config.tools?.map((t) => t.name)).toEqual(['lookup']);
    }
  });

  it('adds nothing when no memory matches, and nothing of another user', async () => {
    const model = new ScriptedModel(['Noted.', 'Hello.', 'Hi.']);
    const { run, remember } = await setUp(
      new LlmAgent({ name: 'helper', model, instruction: 'Be brief.', tools: [preloadMemoryTool] }),
    );

    await remember('alice', 'My favourite city is Lisbon.');
    await run('alice', 'Good morning');
    await run('bob', 'What is my favourite city?');

    expect(model.requests[1]!.config.systemInstruction).toBe('Be brief.');
    expect(model.requests[2]!.config.systemInstruction).toBe('Be brief.');
    expect(model.requests[2]!.config.tools).toBeUndefined();
  });

  it('a model that calls it anyway gets an error response', async () => {
    const model = new ScriptedModel([{ functionCalls: [{ name: 'preload_memory' }] }, 'OK.']);
    const { run } = await setUp(new LlmAgent({ name: 'helper', model, tools: [preloadMemoryTool] }));

    const { result } = await run('alice', 'hi');
    expect(result.events.flatMap(getFunctionResponses)[0]!.response.error).toMatch(/not a function you can call/);
  });

  it('without a memory service the run fails with a ConfigurationError, also for a message without text', async () => {
    const model = new ScriptedModel([]);
    const { run } = await setUp(new LlmAgent({ name: 'helper', model, tools: [preloadMemoryTool] }), false);

    const { result } = await run('alice', ' ');
    expect(result.status).toBe('failed');
    expect(String(result.error)).toMatch(/Tool 'preload_memory' of agent 'helper' needs a memory service/);
  });
});

describe('ctx.searchMemory in a tool', () => {
  it("searches the current user's memories in the current app", async () => {
    const found: string[][] = [];
    const recall = new FunctionTool({
      name: 'recall',
      description: 'Recalls.',
      parameters: z.object({ about: z.string() }),
      execute: async ({ about }, ctx) => {
        const { memories } = await ctx.searchMemory(about);
        found.push(
          memories.map((m) => `${m.author}: ${m.content.parts.map((p) => ('text' in p ? p.text : '')).join('')}`),
        );
        return { count: memories.length };
      },
    });
    const model = new ScriptedModel([
      'Noted.',
      { functionCalls: [{ name: 'recall', args: { about: 'dog' } }] },
      'Rex.',
      { functionCalls: [{ name: 'recall', args: { about: 'dog' } }] },
      'No idea.',
    ]);
    const { run, remember } = await setUp(new LlmAgent({ name: 'helper', model, tools: [recall] }));

    await remember('alice', 'My dog is called Rex.');
    await run('alice', 'What is my dog called?');
    await run('bob', 'What is my dog called?');

    expect(found).toEqual([['user: My dog is called Rex.'], []]);
  });

  it('without a memory service the tool gets a ConfigurationError, which goes back to the model', async () => {
    const recall = new FunctionTool({
      name: 'recall',
      description: 'Recalls.',
      parameters: z.object({}),
      execute: async (_args, ctx) => ctx.searchMemory('x'),
    });
    const model = new ScriptedModel([{ functionCalls: [{ name: 'recall' }] }, 'OK.']);
    const { run } = await setUp(new LlmAgent({ name: 'helper', model, tools: [recall] }), false);

    const { result } = await run('alice', 'hi');
    expect(result.events.flatMap(getFunctionResponses)[0]!.response.error).toMatch(
      /ctx\.searchMemory\(\) in a tool of agent 'helper' needs a memory service/,
    );
  });
});

describe('memory tools in agent definitions', () => {
  it('tools: [load_memory, preload_memory] names the built-in tools', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'troupe-memory-yaml-'));
    try {
      await writeFile(
        join(dir, 'agent.yaml'),
        ['name: helper', 'model: m', 'instruction: Help.', 'tools: [load_memory, preload_memory]'].join('\n'),
      );
      const agent = (await loadAgent(dir, { models: { m: new ScriptedModel([]) } })) as LlmAgent;
      expect(agent.tools).toEqual([loadMemoryTool, preloadMemoryTool]);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

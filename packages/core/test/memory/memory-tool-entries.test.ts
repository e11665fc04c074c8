import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  AgentDefinitionError,
  InMemoryMemoryService,
  InMemorySessionService,
  LoadMemoryTool,
  PreloadMemoryTool,
  Runner,
  createEvent,
  getFunctionResponses,
  loadAgent,
  type LlmAgent,
} from '@troupe/core';
import { FakeEmbedder, ScriptedModel } from '@troupe/core/testing';

// `tools: [{ load_memory: { mode: vector, limit: 5 } }]`: the memory tools with a search mode, in YAML.

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function load(lines: string[], model: ScriptedModel): Promise<LlmAgent> {
  const dir = await mkdtemp(join(tmpdir(), 'troupe-memory-entry-'));
  dirs.push(dir);
  await writeFile(join(dir, 'agent.yaml'), ['name: assistant', 'model: m', 'instruction: Help.', ...lines].join('\n'));
  return (await loadAgent(dir, { models: { m: model } })) as LlmAgent;
}

/** Alice said "My favourite city is Lisbon." in an earlier session; she now asks the agent. */
async function askAboutTown(agent: LlmAgent) {
  const memoryService = new InMemoryMemoryService({ embedder: new FakeEmbedder() });
  const sessionService = new InMemorySessionService();
  const earlier = await sessionService.createSession({ appName: 'app', userId: 'alice' });
  await sessionService.appendEvent({
    session: earlier,
    event: createEvent({
      author: 'user',
      content: { role: 'user', parts: [{ text: 'My favourite city is Lisbon.' }] },
    }),
  });
  await memoryService.addSessionToMemory(earlier);
  const runner = new Runner({ appName: 'app', agent, sessionService, memoryService });
  const now = await sessionService.createSession({ appName: 'app', userId: 'alice' });
  return runner.run({ userId: 'alice', sessionId: now.id, newMessage: 'Which town do I like?' });
}

describe('memory tool entries in agent definitions', () => {
  it('{ load_memory: { mode: vector, limit: 1 } } is a LoadMemoryTool that recalls by meaning', async () => {
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'load_memory', args: { query: 'which town do I like?' } }] },
      'You like Lisbon.',
    ]);
    const agent = await load(['tools:', '  - load_memory: { mode: vector, limit: 1 }'], model);
    expect(agent.tools).toEqual([expect.any(LoadMemoryTool)]);

    const result = await askAboutTown(agent);
    const [response] = result.events.flatMap((event) => getFunctionResponses(event));
    expect(response!.response).toEqual({
      memories: [expect.objectContaining({ content: 'My favourite city is Lisbon.', author: 'user' })],
    });
  });

  it('{ load_memory: { mode: keyword } } searches by words, so the question finds nothing', async () => {
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'load_memory', args: { query: 'which town do I like?' } }] },
      'I do not know.',
    ]);
    const agent = await load(['tools: [{ load_memory: { mode: keyword } }]'], model);
    const result = await askAboutTown(agent);
    expect(result.events.flatMap((event) => getFunctionResponses(event))[0]!.response).toEqual({ memories: [] });
  });

  it('{ preload_memory: { mode: hybrid } } puts the memory nearest the message in the instruction', async () => {
    const model = new ScriptedModel(['You like Lisbon.']);
    const agent = await load(['tools: [{ preload_memory: { mode: hybrid, limit: 2 } }]'], model);
    expect(agent.tools).toEqual([expect.any(PreloadMemoryTool)]);
    await askAboutTown(agent);
    expect(model.requests[0]!.config.systemInstruction).toContain('user: My favourite city is Lisbon.');
  });

  it.each([
    [
      'load_memory: { mode: semantic }',
      /agent\.yaml:5: tools\[0\]\.load_memory: a load_memory entry's mode is keyword, vector or hybrid; got "semantic"/s,
    ],
    ['load_memory: { limit: 0 }', /load_memory entry's limit is a whole number ≥ 1; got 0/],
    ['preload_memory: { mode: vector, top_k: 3 }', /preload_memory entry does not take 'topK'; it takes mode/],
    ['load_memory: [vector]', /a load_memory entry with options is a mapping such as/],
  ])('a bad entry (%s) is an AgentDefinitionError at its line', async (entry, message) => {
    const failed = load(['tools:', `  - ${entry}`], new ScriptedModel([])).catch((error: unknown) => error);
    expect(await failed).toBeInstanceOf(AgentDefinitionError);
    expect(String(await failed)).toMatch(message);
  });
});

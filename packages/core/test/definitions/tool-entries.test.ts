import { dirname } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  AgentDefinitionError,
  BaseToolset,
  ConfigurationError,
  FunctionTool,
  type LlmAgent,
  getFunctionResponses,
  loadAgent,
  registerToolEntry,
  type BaseTool,
  type ToolEntryContext,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { fixture, runAgent } from './helpers.js';

class LettersToolset extends BaseToolset {
  constructor(readonly letters: readonly string[]) {
    super();
  }
  async getTools(): Promise<BaseTool[]> {
    return this.letters.map(
      (letter) =>
        new FunctionTool({ name: letter, description: `Letter ${letter}.`, execute: () => letter.toUpperCase() }),
    );
  }
}

const seen: { spec: unknown; ctx: ToolEntryContext }[] = [];

registerToolEntry('greeting', (spec, ctx) => {
  seen.push({ spec, ctx });
  const { toolName = 'greeting', greetingWord } = spec as { toolName?: string; greetingWord?: unknown };
  if (typeof greetingWord !== 'string')
    throw new Error(`'greeting_word' must be a string such as 'Hello'; got ${JSON.stringify(greetingWord)}.`);
  return new FunctionTool({ name: toolName, description: 'Greets.', execute: () => `${greetingWord}!` });
});
registerToolEntry('letters', (spec) => new LettersToolset((spec as { letters: string[] }).letters));

async function loadError(path: string): Promise<AgentDefinitionError> {
  const error: unknown = await loadAgent(fixture(path), { model: new ScriptedModel([]) }).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AgentDefinitionError);
  return error as AgentDefinitionError;
}

describe('registered tool entry kinds (registerToolEntry)', () => {
  it('a { <kind>: ... } entry is made by the registered factory, tools and toolsets alike, and runs', async () => {
    seen.length = 0;
    const model = new ScriptedModel([{ functionCalls: [{ name: 'greet' }, { name: 'b' }] }, 'done']);
    const agent = (await loadAgent(fixture('tool-entries/registered.yaml'), { model })) as LlmAgent;
    expect(agent.tools.map((t) => t.name)).toEqual(['greet', 'exit_loop']);
    expect(agent.toolsets).toHaveLength(1);
    expect(agent.toolsets[0]).toBeInstanceOf(LettersToolset);

    // The mapping's own keys arrive camelCased; nested values stay as written.
    expect(seen[0]!.spec).toEqual({
      toolName: 'greet',
      greetingWord: 'Hello',
      extraHeaders: { Some_Key: 'kept as written' },
    });
    const file = fixture('tool-entries/registered.yaml');
    expect(seen[0]!.ctx).toEqual({ file, dir: dirname(file), at: { file, line: 4, key: 'tools[0].greeting' } });

    const result = await runAgent(agent, { message: 'hi' });
    expect(result.status).toBe('completed');
    expect(model.requests[0]!.config.tools!.map((t) => t.name)).toEqual(['greet', 'exit_loop', 'a', 'b']);
    expect(result.events.flatMap(getFunctionResponses).map((r) => r.response)).toEqual([
      { result: 'Hello!' },
      { result: 'B' },
    ]);
  });

  it('an entry kind nobody registered says which package to import', async () => {
    const error = await loadError('tool-entries/unregistered.yaml');
    expect(error).toMatchObject({ line: 4, key: 'tools[0].mcp' });
    expect(error.message).toContain(`tools[0].mcp: no tool entry kind 'mcp' is registered`);
    expect(error.message).toContain(
      `Add \`import '@troupe/mcp';\` to your program (it registers 'mcp:' entries; the troupe CLI imports it).`,
    );
    const unknown = await loadError('tool-entries/unknown-kind.yaml');
    expect(unknown.message).toMatch(
      /no tool entry kind 'openapi' is registered \(registered: .*'greeting', 'letters'.*\)\. Import the package that registers it/,
    );
  });

  it("a factory's error is reported at the entry's file, line and key", async () => {
    const error = await loadError('tool-entries/factory-error.yaml');
    expect(error).toMatchObject({
      file: fixture('tool-entries/factory-error.yaml'),
      line: 4,
      key: 'tools[1].greeting',
    });
    expect(error.message).toContain(`tools[1].greeting: 'greeting_word' must be a string such as 'Hello'; got 42.`);
  });

  it('an entry has one key, tool names stay unique, and a typo of agent: still gets a did-you-mean', async () => {
    expect((await loadError('tool-entries/two-keys.yaml')).message).toContain(
      `unknown key 'prefix' for a 'greeting' tool entry`,
    );
    expect((await loadError('tool-entries/duplicate.yaml')).message).toContain(
      `this tool is named 'same', like the tool at`,
    );
    expect((await loadError('tool-entries/agent-typo.yaml')).message).toContain(
      `unknown key 'agnet' for an agent tool entry. Did you mean 'agent'?`,
    );
  });

  it("a module's default-export toolset is a tools entry too", async () => {
    const agent = (await loadAgent(fixture('tool-entries/module-toolset.yaml'))) as LlmAgent;
    expect(agent.tools).toEqual([]);
    expect(agent.toolsets).toHaveLength(1);
    expect((await agent.toolsets[0]!.getTools()).map((t) => t.name)).toEqual(['x']);
  });

  it('rejects invalid kinds and factories', () => {
    expect(() => registerToolEntry('my-kind', () => new LettersToolset([]))).toThrow(ConfigurationError);
    expect(() => registerToolEntry('agent', () => new LettersToolset([]))).toThrow(/reserved/);
    expect(() => registerToolEntry('thing', 'nope' as never)).toThrow(/must be a function/);
  });
});

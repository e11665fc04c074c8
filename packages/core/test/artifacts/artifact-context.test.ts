import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  FunctionAgent,
  FunctionTool,
  InMemoryArtifactService,
  InMemoryRunner,
  InMemorySessionService,
  LlmAgent,
  Runner,
  getFunctionResponses,
  loadAgent,
  loadArtifactsTool,
  type Part,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { z } from 'zod';

const PNG: Part = {
  inlineData: { mimeType: 'image/png', data: Buffer.from([0x89, 0x50, 0x4e, 0x47, 1, 2, 3]).toString('base64') },
};

async function setUp(agent: LlmAgent | FunctionAgent, withArtifacts = true) {
  const sessionService = new InMemorySessionService();
  const artifactService = new InMemoryArtifactService();
  const runner = new Runner({ appName: 'app', agent, sessionService, ...(withArtifacts ? { artifactService } : {}) });
  const session = await sessionService.createSession({ appName: 'app', userId: 'u' });
  const run = (newMessage: string) => runner.run({ userId: 'u', sessionId: session.id, newMessage });
  const stored = async () =>
    (await sessionService.getSession({ appName: 'app', userId: 'u', sessionId: session.id }))!.events;
  return { runner, artifactService, session, run, stored };
}

describe('artifacts through the context', () => {
  it("a tool's saveArtifact returns the version and lands in the stored event's artifactDelta; loadArtifact and listArtifacts read it", async () => {
    const seen: unknown[] = [];
    const save = new FunctionTool({
      name: 'draw',
      description: 'Draws a chart.',
      parameters: z.object({}),
      execute: async (_args, ctx) => ({
        first: await ctx.saveArtifact('chart.png', PNG),
        second: await ctx.saveArtifact('chart.png', PNG),
        notes: await ctx.saveArtifact('user:notes.md', { text: 'hi' }),
      }),
    });
    const read = new FunctionTool({
      name: 'look',
      description: 'Looks at the chart.',
      parameters: z.object({}),
      execute: async (_args, ctx) => {
        seen.push(
          await ctx.loadArtifact('chart.png'),
          await ctx.loadArtifact('chart.png', 0),
          await ctx.loadArtifact('missing.png'),
          await ctx.listArtifacts(),
        );
        return { ok: true };
      },
    });
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'draw' }] },
      'Drawn.',
      { functionCalls: [{ name: 'look' }] },
      'Seen.',
    ]);
    const { run, stored, artifactService, session } = await setUp(
      new LlmAgent({ name: 'artist', model, tools: [save, read] }),
    );

    const first = await run('draw it');
    expect(first.status).toBe('completed');
    const response = first.events.find((e) => getFunctionResponses(e).length > 0)!;
    expect(getFunctionResponses(response)[0]!.response).toEqual({ first: 0, second: 1, notes: 0 });
    expect(response.actions.artifactDelta).toEqual({ 'chart.png': 1, 'user:notes.md': 0 });
    const storedResponse = (await stored()).find((e) => e.id === response.id)!;
    expect(storedResponse.actions.artifactDelta).toEqual({ 'chart.png': 1, 'user:notes.md': 0 });

    await run('look at it');
    expect(seen).toEqual([PNG, PNG, undefined, ['chart.png', 'user:notes.md']]);
    expect(
      await artifactService.listVersions({ appName: 'app', userId: 'u', sessionId: session.id, filename: 'chart.png' }),
    ).toEqual([0, 1]);
  });

  it('before/after agent and before-model callbacks that only save an artifact still produce an event carrying the delta', async () => {
    const model = new ScriptedModel(['Hello.']);
    const agent = new LlmAgent({
      name: 'greeter',
      model,
      beforeAgentCallback: async (ctx) => {
        await ctx.saveArtifact('before.txt', { text: 'before' });
      },
      beforeModelCallback: async ({ context }) => {
        await context.saveArtifact('model.txt', { text: 'model' });
      },
      afterAgentCallback: async (ctx) => {
        await ctx.saveArtifact('after.txt', { text: 'after' });
      },
    });
    const { run, stored } = await setUp(agent);
    const result = await run('hi');
    expect(result.status).toBe('completed');
    const deltas = (await stored()).map((e) => e.actions.artifactDelta).filter((d) => Object.keys(d).length > 0);
    expect(deltas).toEqual([{ 'before.txt': 0 }, { 'model.txt': 0 }, { 'after.txt': 0 }]);
    const answer = (await stored()).find((e) => e.actions.artifactDelta['model.txt'] === 0)!;
    expect(answer.content?.parts).toEqual([{ text: 'Hello.' }]);
  });

  it('a FunctionAgent saves through its context too', async () => {
    const agent = new FunctionAgent({
      name: 'writer',
      run: async (_input, ctx) => `saved v${await ctx.saveArtifact('out.txt', { text: 'x' })}`,
    });
    const { run, stored } = await setUp(agent);
    expect((await run('go')).output).toBe('saved v0');
    expect((await stored()).at(-1)!.actions.artifactDelta).toEqual({ 'out.txt': 0 });
  });

  it('without Runner({ artifactService }) the methods fail with a ConfigurationError saying to pass one', async () => {
    const agent = new FunctionAgent({ name: 'writer', run: async (_input, ctx) => ctx.listArtifacts() });
    const { run } = await setUp(agent, false);
    const result = await run('go');
    expect(result.status).toBe('failed');
    expect(result.error).toBeInstanceOf(ConfigurationError);
    expect((result.error as Error).message).toMatch(
      /ctx\.listArtifacts\(\) needs an artifact store.*artifactService: new InMemoryArtifactService\(\)/,
    );
  });
});

describe('loadArtifactsTool', () => {
  it('lists the artifacts in the instruction, answers what it found, and shows them in the next request only', async () => {
    const model = new ScriptedModel([
      {
        functionCalls: [
          {
            name: 'load_artifacts',
            args: { artifact_names: ['chart.png', 'avatar.png', 'data.json', 'blob.bin', 'nope.txt'] },
          },
        ],
      },
      'I see a chart.',
      'Still here.',
    ]);
    const { run, artifactService, session } = await setUp(
      new LlmAgent({ name: 'viewer', model, tools: [loadArtifactsTool] }),
    );
    const scope = { appName: 'app', userId: 'u', sessionId: session.id };
    await artifactService.saveArtifact({ ...scope, filename: 'chart.png', artifact: PNG });
    await artifactService.saveArtifact({ ...scope, filename: 'user:avatar.png', artifact: PNG });
    await artifactService.saveArtifact({
      ...scope,
      filename: 'data.json',
      artifact: {
        inlineData: { mimeType: 'application/json; charset=utf-8', data: Buffer.from('{"a":1}').toString('base64') },
      },
    });
    await artifactService.saveArtifact({
      ...scope,
      filename: 'blob.bin',
      artifact: {
        inlineData: { mimeType: 'application/octet-stream', data: Buffer.from([0, 1, 2]).toString('base64') },
      },
    });

    const result = await run('What is in the chart?');
    expect(result.status).toBe('completed');
    const [firstRequest, secondRequest] = model.requests;
    expect(firstRequest!.config.systemInstruction).toContain(
      'You have these artifacts: ["blob.bin","chart.png","data.json","user:avatar.png"]',
    );
    expect(firstRequest!.config.tools?.map((t) => t.name)).toEqual(['load_artifacts']);

    const response = result.events.flatMap(getFunctionResponses)[0]!;
    expect(response.response).toMatchObject({
      artifact_names: ['chart.png', 'avatar.png', 'data.json', 'blob.bin'],
      not_found: ['nope.txt'],
    });
    expect(secondRequest!.contents.slice(-4)).toEqual([
      { role: 'user', parts: [{ text: 'Artifact chart.png is:' }, PNG] },
      { role: 'user', parts: [{ text: 'Artifact avatar.png is:' }, PNG] },
      { role: 'user', parts: [{ text: 'Artifact data.json is:' }, { text: '{"a":1}' }] },
      {
        role: 'user',
        parts: [
          { text: 'Artifact blob.bin is:' },
          { text: '[Binary artifact blob.bin, type application/octet-stream, 3 bytes: it cannot be shown inline.]' },
        ],
      },
    ]);

    await run('And now?');
    const third = model.requests[2]!;
    expect(JSON.stringify(third.contents)).not.toContain('Artifact chart.png is:');
  });

  it('adds nothing when the session has no artifacts, and answers a bad argument with an error', async () => {
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'load_artifacts', args: { artifact_names: 'chart.png' } }] },
      'ok',
    ]);
    const { run } = await setUp(
      new LlmAgent({ name: 'viewer', model, instruction: 'Be brief.', tools: [loadArtifactsTool] }),
    );
    const result = await run('hi');
    expect(model.requests[0]!.config.systemInstruction).toBe('Be brief.');
    expect(result.events.flatMap(getFunctionResponses)[0]!.response.error).toMatch(
      /takes \{ artifact_names: string\[\] \}/,
    );
  });

  it("is the built-in 'load_artifacts' of agent definitions", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'troupe-artifacts-def-'));
    await writeFile(join(dir, 'agent.yaml'), 'name: Viewer\nmodel: m\ninstruction: Look.\ntools: [load_artifacts]\n');
    const agent = (await loadAgent(join(dir, 'agent.yaml'), { models: { m: new ScriptedModel([]) } })) as LlmAgent;
    expect(agent.tools).toEqual([loadArtifactsTool]);
  });
});

it('InMemoryRunner has an in-memory artifact store unless given one, as in ADK', async () => {
  const agent = new FunctionAgent({
    name: 'writer',
    run: async (_input, ctx) => `v${await ctx.saveArtifact('a.txt', { text: 'x' })}`,
  });
  const runner = new InMemoryRunner({ agent });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  expect((await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'go' })).output).toBe('v0');
  expect(
    await runner.artifactService!.loadArtifact({
      appName: runner.appName,
      userId: 'u',
      sessionId: session.id,
      filename: 'a.txt',
    }),
  ).toEqual({ text: 'x' });
  const own = new InMemoryArtifactService();
  expect(new InMemoryRunner({ agent, artifactService: own }).artifactService).toBe(own);
});

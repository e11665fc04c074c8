import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  AgentTool,
  BaseAgent,
  FunctionAgent,
  FunctionTool,
  InMemorySessionService,
  LlmAgent,
  LoopAgent,
  ParallelAgent,
  RoutedAgent,
  SequentialAgent,
  TeamAgent,
  type Event,
} from '@troupe/core';
import { GroupChatAgent, PlanExecuteAgent, planSchema, SupervisorAgent } from '@troupe/core/patterns';
import { ScriptedModel } from '@troupe/core/testing';
import { defaultImportModule } from '../src/discover-apps.js';
import { createApp, type AgentGraphNode, type WireEvent } from '../src/index.js';
import { call, createSession, expectError, message, runBody } from './helpers.js';

const agentsDir = fileURLToPath(new URL('./fixtures/agents', import.meta.url));

describe('GET /health, GET /list-apps, GET /apps/{app}/graph', () => {
  it('/health answers without touching the apps', async () => {
    const app = createApp({ apps: {}, sessionService: new InMemorySessionService() });
    const res = await app.request('/health');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ status: 'ok' });
  });

  it('/list-apps is a bare array of app names', async () => {
    const a = new FunctionAgent({ name: 'a', run: () => 'a' });
    const b = new FunctionAgent({ name: 'b', run: () => 'b' });
    const app = createApp({ apps: { first: a, second: b } });
    expect(await (await app.request('/list-apps')).json()).toEqual(['first', 'second']);
  });

  it('/apps/{app}/graph is the agent tree: name, type, class, description, model, children and tools', async () => {
    const lookup = new FunctionTool({ name: 'lookup', description: 'Looks things up.', execute: () => ({}) });
    const researcher = new LlmAgent({
      name: 'researcher',
      description: 'Researches.',
      model: new ScriptedModel([], { model: 'test-model' }),
      tools: [lookup],
    });
    const fetchA = new FunctionAgent({ name: 'fetchA', run: () => 'a' });
    const fetchB = new FunctionAgent({ name: 'fetchB', run: () => 'b' });
    const calculator = new LlmAgent({ name: 'calculator', description: 'Adds.', model: 'gemini-2.5-flash' });
    const root = new SequentialAgent({
      name: 'pipeline',
      description: 'Does it all.',
      subAgents: [
        new ParallelAgent({ name: 'fetch', subAgents: [fetchA, fetchB] }),
        researcher,
        new LlmAgent({ name: 'writer', tools: [new AgentTool({ agent: calculator })] }),
      ],
    });
    const app = createApp({ apps: { pipe: root } });
    const graph = (await (await app.request('/apps/pipe/graph')).json()) as AgentGraphNode;
    expect(graph).toEqual({
      name: 'pipeline',
      type: 'sequential',
      class: 'SequentialAgent',
      description: 'Does it all.',
      tools: [],
      children: [
        {
          name: 'fetch',
          type: 'parallel',
          class: 'ParallelAgent',
          description: '',
          tools: [],
          children: [
            { name: 'fetchA', type: 'function', class: 'FunctionAgent', description: '', tools: [], children: [] },
            { name: 'fetchB', type: 'function', class: 'FunctionAgent', description: '', tools: [], children: [] },
          ],
        },
        {
          name: 'researcher',
          type: 'llm',
          class: 'LlmAgent',
          description: 'Researches.',
          model: 'test-model',
          children: [],
          tools: [{ name: 'lookup', description: 'Looks things up.', class: 'FunctionTool' }],
        },
        {
          name: 'writer',
          type: 'llm',
          class: 'LlmAgent',
          description: '',
          children: [],
          tools: [
            {
              name: 'calculator',
              description: 'Adds.',
              class: 'AgentTool',
              agent: {
                name: 'calculator',
                type: 'llm',
                class: 'LlmAgent',
                description: 'Adds.',
                model: 'gemini-2.5-flash',
                children: [],
                tools: [],
              },
            },
          ],
        },
      ],
    });
    await expectError(await app.request('/apps/nope/graph'), 404, 'APP_NOT_FOUND');
  });

  it("/apps/{app}/graph shows every built-in agent with its kind (as definition files' type: names it) and its children", async () => {
    class Checker extends BaseAgent {
      protected async *runAsyncImpl(): AsyncGenerator<Event, void, undefined> {}
    }
    class Pipeline extends SequentialAgent {}
    const fn = (name: string) => new FunctionAgent({ name, run: () => name });
    const root = new Pipeline({
      name: 'root',
      subAgents: [
        new ParallelAgent({ name: 'fan', subAgents: [fn('p1'), fn('p2')] }),
        new LoopAgent({ name: 'loop', subAgents: [new Checker({ name: 'checker' })], maxIterations: 2 }),
        new TeamAgent({ name: 'team', skills: [fn('skill')] }),
        new RoutedAgent({ name: 'router', agents: { main: fn('main') }, router: () => 'main' }),
        new SupervisorAgent({ name: 'lead', model: 'gemini-2.5-flash', subAgents: [fn('worker')] }),
        new PlanExecuteAgent({
          name: 'plan',
          planner: new LlmAgent({ name: 'planner', outputSchema: planSchema }),
          executor: fn('executor'),
        }),
        new GroupChatAgent({ name: 'chat', participants: [fn('speaker')], selector: 'round_robin' }),
      ],
    });
    const app = createApp({ apps: { all: root } });
    const graph = (await (await app.request('/apps/all/graph')).json()) as AgentGraphNode;
    // Each agent as "name: type (class)", with its children and the agents of its AgentTools below it.
    const draw = (node: AgentGraphNode): unknown => {
      const below = [...node.children, ...node.tools.flatMap((tool) => (tool.agent ? [tool.agent] : []))];
      const label = `${node.name}: ${node.type} (${node.class})`;
      return below.length === 0 ? label : { [label]: below.map(draw) };
    };
    expect(draw(graph)).toEqual({
      // A subclass keeps its parent's kind; a class extending BaseAgent directly is 'custom'.
      'root: sequential (Pipeline)': [
        { 'fan: parallel (ParallelAgent)': ['p1: function (FunctionAgent)', 'p2: function (FunctionAgent)'] },
        { 'loop: loop (LoopAgent)': ['checker: custom (Checker)'] },
        { 'team: team (TeamAgent)': ['skill: function (FunctionAgent)'] },
        { 'router: routed (RoutedAgent)': ['main: function (FunctionAgent)'] },
        // A supervisor's workers are its AgentTools.
        { 'lead: supervisor (SupervisorAgent)': ['worker: function (FunctionAgent)'] },
        { 'plan: plan_execute (PlanExecuteAgent)': ['planner: llm (LlmAgent)', 'executor: function (FunctionAgent)'] },
        { 'chat: group_chat (GroupChatAgent)': ['speaker: function (FunctionAgent)'] },
      ],
    });
    expect(graph.children.find((child) => child.name === 'lead')).toMatchObject({
      model: 'gemini-2.5-flash',
      tools: [{ name: 'worker', class: 'AgentTool' }],
    });
  });

  it('unknown routes are JSON 404s', async () => {
    const app = createApp({ apps: {} });
    await expectError(await app.request('/nope'), 404, 'NOT_FOUND');
    await expectError(await app.request('/run', { method: 'GET' }), 404, 'NOT_FOUND');
  });

  it('rejects unusable options when the app is created', () => {
    expect(() => createApp({})).toThrow(/apps .* or an agentsDir/);
    expect(() => createApp({ apps: {}, bodyLimit: -1 })).toThrow(/bodyLimit/);
    expect(() => createApp({ agentsDir: '/definitely/not/here' })).toThrow(
      /agentsDir '\/definitely\/not\/here' is not a directory/,
    );
    expect(() => createApp({ apps: {}, staticDir: '/definitely/not/here' })).toThrow(/staticDir/);
    expect(() => createApp({ apps: { x: {} as never } })).toThrow(/apps\['x'\] must be an agent/);
  });
});

describe('agentsDir discovery', () => {
  it('lists folders with agent.ts/agent.mjs/agent.yaml; files beside them (solo.ts exports rootAgent) and folders without an entry are not apps', async () => {
    const app = createApp({ agentsDir });
    expect(await (await app.request('/list-apps')).json()).toEqual([
      'bad_yaml',
      'broken',
      'js_app',
      'not_agent',
      'weather',
      'yaml_app',
    ]);
  });

  it('runs a discovered TypeScript app, a JavaScript default export and a YAML definition', async () => {
    const app = createApp({ agentsDir });
    const s = await createSession(app, 'js_app', 'u');
    const events = (await (
      await call(app, 'POST', '/run', { appName: 'js_app', userId: 'u', sessionId: s.id, newMessage: message('ping') })
    ).json()) as WireEvent[];
    expect(events.at(-1)!.content!.parts).toEqual([{ text: 'echo: ping' }]);
    const greeter = await createSession(app, 'yaml_app', 'u');
    const greeting = (await (await call(app, 'POST', '/run', runBody(greeter, 'hello'))).json()) as WireEvent[];
    expect(greeting.at(-1)).toMatchObject({ author: 'greeter', content: { role: 'model' } });
    expect(greeting.at(-1)!.errorCode).toBeUndefined();
    const graph = (await (await app.request('/apps/weather/graph')).json()) as AgentGraphNode;
    expect(graph).toMatchObject({
      name: 'weather_desk',
      type: 'llm',
      model: 'offline',
      children: [{ name: 'forecast' }],
      tools: [{ name: 'units' }],
    });
  });

  it('uses the injected importModule (the CLI passes a TypeScript importer)', async () => {
    const imported: string[] = [];
    const app = createApp({
      agentsDir,
      importModule: (path) => {
        imported.push(path);
        return defaultImportModule(path);
      },
    });
    await app.request('/apps/js_app/graph');
    expect(imported.map((p) => p.replaceAll('\\', '/').replace(/^.*\/agents\//, ''))).toEqual(['js_app/agent.mjs']);
  });

  it('an app that fails to load is a 500 whose body names no file (onError gets the file and the reason); explicit apps win over discovered ones', async () => {
    const errors: unknown[] = [];
    const replacement = new FunctionAgent({ name: 'fixed', run: () => 'fixed' });
    const app = createApp({ agentsDir, apps: { broken: replacement }, onError: (error) => errors.push(error) });
    expect(await (await app.request('/list-apps')).json()).toEqual([
      'broken',
      'bad_yaml',
      'js_app',
      'not_agent',
      'weather',
      'yaml_app',
    ]);
    expect(((await (await app.request('/apps/broken/graph')).json()) as AgentGraphNode).name).toBe('fixed');

    const plain = createApp({ agentsDir, onError: (error) => errors.push(error) });
    // The client learns that the app failed to load; the file and the reason go to onError (the server's log).
    for (const name of ['broken', 'not_agent', 'bad_yaml']) {
      const message = await expectError(await plain.request(`/apps/${name}/graph`), 500, 'AGENT_LOAD');
      expect(message).toMatch(/^The app could not be loaded.*Request id: /);
      expect(message).not.toContain(agentsDir);
    }
    expect(errors.map((e) => (e as Error).message)).toEqual([
      expect.stringMatching(/broken[/\\]agent\.mjs.*broken on purpose/),
      expect.stringMatching(/not_agent[/\\]agent\.mjs.*'rootAgent' export is not an agent/),
      expect.stringMatching(/bad_yaml[/\\]agent\.yml.*not-a-type/s),
    ]);
    await expectError(await plain.request('/apps/no_entry/graph'), 404, 'APP_NOT_FOUND');
    await expectError(await plain.request('/apps/shared-helpers/graph'), 404, 'APP_NOT_FOUND');
  });
});

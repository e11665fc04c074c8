import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  AgentTool,
  BasePlugin,
  FunctionAgent,
  FunctionTool,
  InMemoryRunner,
  LlmAgent,
  ParallelAgent,
  SequentialAgent,
  getFunctionCalls,
  getFunctionResponses,
  isFinalResponse,
  textOf,
  type Event,
  type FunctionResponse,
  type LlmRequest,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { runOnce, texts } from '../helpers.js';
import { barrier, deferred } from '../wait.js';

function lastResponses(request: LlmRequest): FunctionResponse[] {
  return request.contents.at(-1)!.parts.flatMap((p) => ('functionResponse' in p ? [p.functionResponse] : []));
}

function allText(request: LlmRequest): string {
  return JSON.stringify(request.contents) + (request.config.systemInstruction ?? '');
}

function lastUserText(request: LlmRequest): string {
  const user = request.contents.filter((c) => c.role === 'user').at(-1);
  return (user?.parts ?? []).map((p) => ('text' in p ? p.text : '')).join('');
}

async function newSession(runner: InMemoryRunner, state?: Record<string, unknown>): Promise<string> {
  const session = await runner.sessionService.createSession({
    appName: runner.appName,
    userId: 'u',
    ...(state ? { state } : {}),
  });
  return session.id;
}

describe('AgentTool', () => {
  it('runs the agent inside the same session: same user and session id, the parent state readable (also in the instruction)', async () => {
    const seen: Record<string, unknown>[] = [];
    const probe = new FunctionAgent({
      name: 'Probe',
      description: 'Looks at the session.',
      run: (input, ctx) => {
        seen.push({
          input,
          sessionId: ctx.session.id,
          userId: ctx.session.userId,
          topic: ctx.state.get('topic'),
          user: ctx.state.get('user:name'),
        });
        return { ok: true };
      },
    });
    const childModel = new ScriptedModel(['Tides are caused by the moon.']);
    const researcher = new LlmAgent({
      name: 'Researcher',
      description: 'Researches a topic.',
      model: childModel,
      instruction: 'Research {topic} for {user:name}.',
    });
    const parentModel = new ScriptedModel([
      {
        functionCalls: [
          { name: 'Probe', args: { request: 'look' } },
          { name: 'Researcher', args: { request: 'why tides?' } },
        ],
      },
      'Here is what I found.',
    ]);
    const writer = new LlmAgent({
      name: 'Writer',
      model: parentModel,
      tools: [new AgentTool({ agent: probe }), new AgentTool({ agent: researcher })],
    });
    const runner = new InMemoryRunner({ agent: writer });
    const sessionId = await newSession(runner, { topic: 'tides', 'user:name': 'Alice' });
    const result = await runner.run({ userId: 'u', sessionId, newMessage: 'Write about tides.' });

    expect(result.status).toBe('completed');
    expect(seen).toEqual([{ input: { request: 'look' }, sessionId, userId: 'u', topic: 'tides', user: 'Alice' }]);
    expect(childModel.requests[0]!.config.systemInstruction).toContain('Research tides for Alice.');
    const stored = await runner.sessionService.getSession({ appName: runner.appName, userId: 'u', sessionId });
    expect(stored!.events.some((e) => e.author === 'Researcher' && textOf(e) === 'Tides are caused by the moon.')).toBe(
      true,
    );
    // The child is not added to the caller's tree.
    expect(researcher.parentAgent).toBeUndefined();
  });

  it('the child reads state the caller wrote earlier in the same run', async () => {
    const draft = new FunctionTool({
      name: 'save_draft',
      description: 'saves a draft',
      execute: (_args, ctx) => {
        ctx.state.set('draft', 'v1 of the essay');
        return 'saved';
      },
    });
    const reviewerModel = new ScriptedModel(['Looks good.']);
    const reviewer = new LlmAgent({
      name: 'Reviewer',
      model: reviewerModel,
      instruction: 'Review this draft: {draft}',
    });
    const parentModel = new ScriptedModel([
      { functionCalls: [{ name: 'save_draft' }] },
      { functionCalls: [{ name: 'Reviewer', args: { request: 'review it' } }] },
      'Reviewed.',
    ]);
    const result = await runOnce(
      new LlmAgent({ name: 'Author', model: parentModel, tools: [draft, new AgentTool({ agent: reviewer })] }),
      'go',
    );
    expect(result.status).toBe('completed');
    expect(reviewerModel.requests[0]!.config.systemInstruction).toContain('Review this draft: v1 of the essay');
  });

  it('takes { request } by default: the declaration says so and the child sees only that request, not the conversation', async () => {
    const childModel = new ScriptedModel(['The moon pulls the sea.']);
    const researcher = new LlmAgent({ name: 'Researcher', description: 'Researches a topic.', model: childModel });
    const parentModel = new ScriptedModel([
      'First answer.',
      { functionCalls: [{ name: 'Researcher', args: { request: 'why tides?' } }] },
      'Because of the moon.',
    ]);
    const writer = new LlmAgent({ name: 'Writer', model: parentModel, tools: [new AgentTool({ agent: researcher })] });
    const runner = new InMemoryRunner({ agent: writer });
    const sessionId = await newSession(runner);
    await runner.run({ userId: 'u', sessionId, newMessage: 'my secret earlier message' });
    await runner.run({ userId: 'u', sessionId, newMessage: 'a second private question' });

    const declaration = parentModel.requests[1]!.config.tools!.find((t) => t.name === 'Researcher')!;
    expect(declaration.description).toBe('Researches a topic.');
    expect(declaration.parameters).toMatchObject({
      type: 'object',
      properties: { request: { type: 'string' } },
      required: ['request'],
    });
    expect(childModel.requests).toHaveLength(1);
    expect(childModel.requests[0]!.contents).toEqual([{ role: 'user', parts: [{ text: 'why tides?' }] }]);
    const seen = allText(childModel.requests[0]!);
    expect(seen).not.toContain('secret earlier');
    expect(seen).not.toContain('First answer');
    expect(seen).not.toContain('second private');
  });

  it("uses the agent's inputSchema as the declaration parameters and its input", async () => {
    const inputs: unknown[] = [];
    const converter = new FunctionAgent({
      name: 'Converter',
      description: 'Converts an amount.',
      inputSchema: z.object({ amount: z.number().describe('How much'), currency: z.enum(['EUR', 'USD']) }),
      run: (input) => {
        inputs.push(input);
        return { converted: input.amount * 2, currency: input.currency };
      },
    });
    const childModel = new ScriptedModel(['Summary of Tides, 3 points.']);
    const summarizer = new LlmAgent({
      name: 'Summarizer',
      model: childModel,
      inputSchema: {
        type: 'object',
        properties: { title: { type: 'string' }, points: { type: 'integer' } },
        required: ['title'],
      },
    });
    const parentModel = new ScriptedModel([
      {
        functionCalls: [
          { name: 'Converter', args: { amount: 5, currency: 'EUR' } },
          { name: 'Converter', args: { amount: 'five', currency: 'GBP' } },
          { name: 'Summarizer', args: { title: 'Tides', points: 3 } },
        ],
      },
      'done',
    ]);
    const runner = new InMemoryRunner({
      agent: new LlmAgent({
        name: 'Caller',
        model: parentModel,
        tools: [new AgentTool({ agent: converter }), new AgentTool({ agent: summarizer })],
      }),
    });
    const result = await runner.run({ userId: 'u', sessionId: await newSession(runner), newMessage: 'go' });

    const declarations = parentModel.requests[0]!.config.tools!;
    expect(declarations.find((d) => d.name === 'Converter')!.parameters).toMatchObject({
      type: 'object',
      properties: { amount: { type: 'number', description: 'How much' }, currency: { enum: ['EUR', 'USD'] } },
      required: ['amount', 'currency'],
    });
    expect(declarations.find((d) => d.name === 'Summarizer')!.parameters).toEqual({
      type: 'object',
      properties: { title: { type: 'string' }, points: { type: 'integer' } },
      required: ['title'],
    });
    expect(inputs).toEqual([{ amount: 5, currency: 'EUR' }]);
    const [good, bad, summary] = lastResponses(parentModel.requests[1]!);
    expect(good!.response).toEqual({ converted: 10, currency: 'EUR' });
    expect(bad!.response.error).toMatch(/Converter/);
    expect(bad!.response.error).toMatch(/amount|currency/);
    expect(summary!.response).toEqual({ result: 'Summary of Tides, 3 points.' });
    // An LlmAgent given a structured input sees it as JSON.
    expect(JSON.parse(lastUserText(childModel.requests[0]!))).toEqual({ title: 'Tides', points: 3 });
    expect(result.status).toBe('completed');
  });

  it("the result is the agent's output: an object as is, a string as { result }", async () => {
    const structured = new LlmAgent({
      name: 'Extractor',
      model: new ScriptedModel(['{"city": "Oslo", "population": 700000}']),
      outputSchema: z.object({ city: z.string(), population: z.number() }),
    });
    const plain = new LlmAgent({
      name: 'Talker',
      model: new ScriptedModel([{ text: 'Plain words.', thought: 'hidden thought' }]),
    });
    const fn = new FunctionAgent({ name: 'Fn', run: () => ({ list: [1, 2] }) });
    const parentModel = new ScriptedModel([
      {
        functionCalls: [
          { name: 'Extractor', args: { request: 'x' } },
          { name: 'Talker', args: { request: 'y' } },
          { name: 'Fn', args: { request: 'z' } },
        ],
      },
      'ok',
    ]);
    const tools = [structured, plain, fn].map((agent) => new AgentTool({ agent }));
    await runOnce(new LlmAgent({ name: 'Caller', model: parentModel, tools }), 'go');

    expect(lastResponses(parentModel.requests[1]!).map((r) => r.response)).toEqual([
      { city: 'Oslo', population: 700000 },
      { result: 'Plain words.' },
      { list: [1, 2] },
    ]);
  });

  it("state writes flow back to the session, the child's outputKey included, and the caller sees them at once", async () => {
    const note = new FunctionTool({
      name: 'note',
      description: 'writes notes',
      execute: (_args, ctx) => {
        ctx.state.set('found', 42);
        ctx.state.set('user:last_topic', 'tides');
        return 'noted';
      },
    });
    const childModel = new ScriptedModel([{ functionCalls: [{ name: 'note' }] }, 'Research: the moon.']);
    const researcher = new LlmAgent({ name: 'Researcher', model: childModel, tools: [note], outputKey: 'research' });
    const parentModel = new ScriptedModel([
      { functionCalls: [{ name: 'Researcher', args: { request: 'tides' } }] },
      'Article done.',
    ]);
    const writer = new LlmAgent({
      name: 'Writer',
      model: parentModel,
      instruction: 'Research so far: {research?}; found={found?}',
      tools: [new AgentTool({ agent: researcher })],
    });
    const result = await runOnce(writer, 'write');

    expect(result.state).toMatchObject({ research: 'Research: the moon.', found: 42, 'user:last_topic': 'tides' });
    expect(parentModel.requests[0]!.config.systemInstruction).toContain('Research so far: ; found=');
    expect(parentModel.requests[1]!.config.systemInstruction).toContain(
      'Research so far: Research: the moon.; found=42',
    );
    const stored = await result.runner.sessionService.getSession({
      appName: result.runner.appName,
      userId: 'u',
      sessionId: result.sessionId,
    });
    expect(stored!.state).toMatchObject({ research: 'Research: the moon.', found: 42, 'user:last_topic': 'tides' });
  });

  it('temp: keys written inside the child are not visible to the caller afterwards [bug elsewhere]', async () => {
    const scratch = new FunctionTool({
      name: 'scratch',
      description: 'uses temp state',
      execute: (_args, ctx) => {
        ctx.state.set('temp:scratch', 'child secret');
        ctx.state.set('temp:shared', 'overwritten by child');
        return 'ok';
      },
    });
    const childModel = new ScriptedModel([
      { functionCalls: [{ name: 'scratch' }] },
      'child done, scratch={temp:scratch?}',
    ]);
    const child = new LlmAgent({
      name: 'Child',
      model: childModel,
      tools: [scratch],
      instruction: 'scratch is {temp:scratch?}',
    });
    const peeks: unknown[] = [];
    const peek = new FunctionTool({
      name: 'peek',
      description: 'reads temp state',
      execute: (_args, ctx) => {
        peeks.push({
          scratch: ctx.state.get('temp:scratch'),
          shared: ctx.state.get('temp:shared'),
          inSession: ctx.session.state['temp:scratch'],
        });
        return 'peeked';
      },
    });
    const setShared = new FunctionTool({
      name: 'set_shared',
      description: 'sets temp state',
      execute: (_args, ctx) => {
        ctx.state.set('temp:shared', 'parent value');
        return 'set';
      },
    });
    const parentModel = new ScriptedModel([
      { functionCalls: [{ name: 'set_shared' }] },
      { functionCalls: [{ name: 'Child', args: { request: 'work' } }] },
      { functionCalls: [{ name: 'peek' }] },
      'parent done',
    ]);
    const parent = new LlmAgent({
      name: 'Parent',
      model: parentModel,
      instruction: 'scratch=[{temp:scratch?}] shared=[{temp:shared?}]',
      tools: [setShared, new AgentTool({ agent: child }), peek],
    });
    const result = await runOnce(parent, 'go');

    expect(result.status).toBe('completed');
    // Inside the child, its own temp: write is visible.
    expect(childModel.requests[1]!.config.systemInstruction).toContain('scratch is child secret');
    // Afterwards the caller sees neither the child's new temp: key nor its overwrite of the caller's own.
    expect(parentModel.requests[2]!.config.systemInstruction).toContain('scratch=[] shared=[parent value]');
    expect(peeks).toEqual([{ scratch: undefined, shared: 'parent value', inSession: undefined }]);
    const callResult = result.events.find(
      (e) => e.author === 'Parent' && getFunctionResponses(e).some((r) => r.name === 'Child'),
    )!;
    expect(callResult.actions.stateDelta).not.toHaveProperty('temp:scratch');
    expect(callResult.actions.stateDelta).not.toHaveProperty('temp:shared');
    expect(JSON.stringify(result.state)).not.toContain('temp:');
    const stored = await result.runner.sessionService.getSession({
      appName: result.runner.appName,
      userId: 'u',
      sessionId: result.sessionId,
    });
    expect(JSON.stringify(stored!.state)).not.toContain('temp:');
    expect(JSON.stringify(stored!.events.map((e) => e.actions.stateDelta))).not.toContain('temp:');
  });

  it("streams the child's events between the call and its result, on branch <caller branch>.<caller>.<agent>, with the path through the caller", async () => {
    const childModel = new ScriptedModel([{ functionCalls: [{ name: 'lookup' }] }, 'Found it.']);
    const lookup = new FunctionTool({ name: 'lookup', description: 'looks up', execute: () => 'data' });
    const researcher = new LlmAgent({ name: 'Researcher', model: childModel, tools: [lookup] });
    const writerModel = new ScriptedModel([
      { functionCalls: [{ name: 'Researcher', args: { request: 'q' } }] },
      'Written.',
    ]);
    const writer = new LlmAgent({ name: 'Writer', model: writerModel, tools: [new AgentTool({ agent: researcher })] });
    const other = new LlmAgent({ name: 'Other', model: new ScriptedModel(['other']) });
    const root = new SequentialAgent({
      name: 'Pipeline',
      subAgents: [new ParallelAgent({ name: 'Fan', subAgents: [writer, other] })],
    });
    const runner = new InMemoryRunner({ agent: root });
    const sessionId = await newSession(runner);
    const streamed: Event[] = [];
    for await (const event of runner.runAsync({ userId: 'u', sessionId, newMessage: 'go' })) streamed.push(event);

    const writerEvents = streamed.filter((e) => e.author === 'Writer' || e.author === 'Researcher');
    expect(
      writerEvents.map(
        (e) =>
          `${e.author}:${getFunctionCalls(e).length ? 'call' : getFunctionResponses(e).length ? 'response' : textOf(e)}`,
      ),
    ).toEqual([
      'Writer:call',
      'Researcher:call',
      'Researcher:response',
      'Researcher:Found it.',
      'Writer:response',
      'Writer:Written.',
    ]);
    for (const e of writerEvents.filter((x) => x.author === 'Researcher')) {
      expect(e.branch).toBe('Fan.Writer.Writer.Researcher');
      expect(e.path).toBe('Pipeline/Fan/Writer/Researcher');
      expect(e.invocationId).toBe(streamed[0]!.invocationId);
    }
    for (const e of writerEvents.filter((x) => x.author === 'Writer')) {
      expect(e.branch).toBe('Fan.Writer');
      expect(e.path).toBe('Pipeline/Fan/Writer');
    }
    const stored = await runner.sessionService.getSession({ appName: runner.appName, userId: 'u', sessionId });
    expect(stored!.events.filter((e) => e.author === 'Researcher').map((e) => e.id)).toEqual(
      writerEvents.filter((e) => e.author === 'Researcher').map((e) => e.id),
    );
  });

  it("at the top level the child's branch is <caller>.<agent>", async () => {
    const researcher = new LlmAgent({ name: 'Researcher', model: new ScriptedModel(['r']) });
    const writer = new LlmAgent({
      name: 'Writer',
      model: new ScriptedModel([{ functionCalls: [{ name: 'Researcher', args: { request: 'q' } }] }, 'w']),
      tools: [new AgentTool({ agent: researcher })],
    });
    const result = await runOnce(writer, 'go');
    const child = result.events.find((e) => e.author === 'Researcher')!;
    expect(child.branch).toBe('Writer.Researcher');
    expect(child.path).toBe('Writer/Researcher');
  });

  it("the child's events stay out of every other agent's history, the caller's included (it sees only the result)", async () => {
    const childModel = new ScriptedModel([
      { functionCalls: [{ name: 'lookup', args: { q: 'inner-args' } }], text: 'INNER-CHILD-TEXT' },
      'Child result.',
    ]);
    const lookup = new FunctionTool({
      name: 'lookup',
      description: 'looks up',
      execute: () => ({ inner: 'INNER-TOOL-RESULT' }),
    });
    const researcher = new LlmAgent({ name: 'Researcher', model: childModel, tools: [lookup], outputKey: 'research' });
    const writerModel = new ScriptedModel([
      { functionCalls: [{ name: 'Researcher', args: { request: 'q' } }] },
      'Written.',
      'Second turn answer.',
    ]);
    const writer = new LlmAgent({ name: 'Writer', model: writerModel, tools: [new AgentTool({ agent: researcher })] });
    const editorModel = new ScriptedModel(['Edited.', 'Edited again.']);
    const editor = new LlmAgent({ name: 'Editor', model: editorModel });
    const runner = new InMemoryRunner({ agent: new SequentialAgent({ name: 'Flow', subAgents: [writer, editor] }) });
    const sessionId = await newSession(runner);
    await runner.run({ userId: 'u', sessionId, newMessage: 'first' });
    await runner.run({ userId: 'u', sessionId, newMessage: 'second' });

    expect(writerModel.requests).toHaveLength(3);
    expect(editorModel.requests).toHaveLength(2);
    for (const request of [...writerModel.requests, ...editorModel.requests]) {
      const seen = JSON.stringify(request.contents);
      expect(seen).not.toContain('INNER-CHILD-TEXT');
      expect(seen).not.toContain('INNER-TOOL-RESULT');
      expect(seen).not.toContain('inner-args');
      expect(seen).not.toContain('[Researcher]');
    }
    // The caller does see its own call and the result, which is the child's output.
    expect(lastResponses(writerModel.requests[1]!)).toEqual([
      { id: 'call_1_1', name: 'Researcher', response: { result: 'Child result.' } },
    ]);
    // Other agents see the caller's call and result rewritten as context, not the inside of the call.
    expect(
      texts(editorModel.requests[0]!.contents).some((t) => t.startsWith("[Writer] called tool 'Researcher'")),
    ).toBe(true);
  });

  it('wrapping a ParallelAgent: the result maps child names to outputs; the children run on branches under the call and stay hidden from the caller', async () => {
    const a = new LlmAgent({ name: 'A', model: new ScriptedModel(['A-INNER-ANSWER']) });
    const b = new FunctionAgent({ name: 'B', run: () => ({ b: 2 }) });
    const gather = new ParallelAgent({ name: 'Gather', description: 'Gathers in parallel.', subAgents: [a, b] });
    const parentModel = new ScriptedModel([
      { functionCalls: [{ name: 'Gather', args: { request: 'collect' } }] },
      'Gathered.',
    ]);
    const result = await runOnce(
      new LlmAgent({ name: 'Writer', model: parentModel, tools: [new AgentTool({ agent: gather })] }),
      'go',
    );

    expect(result.status).toBe('completed');
    expect(lastResponses(parentModel.requests[1]!)[0]!.response).toEqual({ A: 'A-INNER-ANSWER', B: { b: 2 } });
    const inner = result.events.filter((e) => e.author === 'A' || e.author === 'B');
    expect(inner.map((e) => [e.author, e.branch, e.path]).sort()).toEqual([
      ['A', 'Writer.Gather.Gather.A', 'Writer/Gather/A'],
      ['B', 'Writer.Gather.Gather.B', 'Writer/Gather/B'],
    ]);
    const seen = JSON.stringify(parentModel.requests[1]!.contents);
    expect(seen).not.toContain('[A] said');
    expect(seen.match(/A-INNER-ANSWER/g)).toHaveLength(1);
  });

  it("calling it twice in one run works; the second call does not see the first call's conversation", async () => {
    const childModel = new ScriptedModel([
      (request) => `answer to ${lastUserText(request)}`,
      (request) => `answer to ${lastUserText(request)}`,
    ]);
    const researcher = new LlmAgent({ name: 'Researcher', model: childModel, outputKey: 'research' });
    const parentModel = new ScriptedModel([
      { functionCalls: [{ name: 'Researcher', args: { request: 'first question' } }] },
      { functionCalls: [{ name: 'Researcher', args: { request: 'second question' } }] },
      'Both answered.',
    ]);
    const result = await runOnce(
      new LlmAgent({ name: 'Parent', model: parentModel, tools: [new AgentTool({ agent: researcher })] }),
      'go',
    );

    expect(result.status).toBe('completed');
    expect(childModel.requests.map((r) => r.contents)).toEqual([
      [{ role: 'user', parts: [{ text: 'first question' }] }],
      [{ role: 'user', parts: [{ text: 'second question' }] }],
    ]);
    expect(lastResponses(parentModel.requests[1]!)[0]!.response).toEqual({ result: 'answer to first question' });
    expect(lastResponses(parentModel.requests[2]!)[0]!.response).toEqual({ result: 'answer to second question' });
    expect(result.state.research).toBe('answer to second question');
  });

  it('two calls in the same turn run concurrently, each seeing only its own input', async () => {
    // Each child answers only once both are in their model call: run one after the other, they would never meet.
    const bothCalling = barrier(2, 'child agents in their model call');
    let answered = 0;
    const reply = async (request: LlmRequest) => {
      await bothCalling.arrive();
      answered++;
      return `answer to ${lastUserText(request)}`;
    };
    const childModel = new ScriptedModel([reply, reply]);
    const researcher = new LlmAgent({ name: 'Researcher', model: childModel });
    const parentModel = new ScriptedModel([
      {
        functionCalls: [
          { name: 'Researcher', args: { request: 'alpha' } },
          { name: 'Researcher', args: { request: 'beta' } },
        ],
      },
      'Both answered.',
    ]);
    const result = await runOnce(
      new LlmAgent({ name: 'Parent', model: parentModel, tools: [new AgentTool({ agent: researcher })] }),
      'go',
    );

    expect(result.status).toBe('completed');
    expect(answered).toBe(2);
    expect(childModel.requests.map((r) => r.contents.length)).toEqual([1, 1]);
    expect(lastResponses(parentModel.requests[1]!).map((r) => r.response)).toEqual([
      { result: 'answer to alpha' },
      { result: 'answer to beta' },
    ]);
  });

  it('a child error becomes an error tool response, never an empty success, and the caller goes on', async () => {
    const failingModel = new ScriptedModel([{ error: 'upstream exploded', status: 500 }]);
    const failingLlm = new LlmAgent({ name: 'FailingLlm', model: failingModel });
    const failingFn = new FunctionAgent({
      name: 'FailingFn',
      run: () => {
        throw new Error('function agent broke');
      },
    });
    const parentModel = new ScriptedModel([
      {
        functionCalls: [
          { name: 'FailingLlm', args: { request: 'x' } },
          { name: 'FailingFn', args: { request: 'y' } },
        ],
      },
      'Both helpers failed; sorry.',
    ]);
    const result = await runOnce(
      new LlmAgent({
        name: 'Parent',
        model: parentModel,
        tools: [new AgentTool({ agent: failingLlm }), new AgentTool({ agent: failingFn })],
      }),
      'go',
    );

    expect(result.status).toBe('completed');
    expect(result.output).toBe('Both helpers failed; sorry.');
    const [llmError, fnError] = lastResponses(parentModel.requests[1]!);
    expect(Object.keys(llmError!.response)).toEqual(['error']);
    expect(llmError!.response.error).toMatch(/upstream exploded/);
    expect(Object.keys(fnError!.response)).toEqual(['error']);
    expect(fnError!.response.error).toMatch(/function agent broke/);
  });

  it('an agent that produces no output is not reported as an empty success', async () => {
    const silent = new FunctionAgent({ name: 'Silent', run: () => undefined });
    const parentModel = new ScriptedModel([{ functionCalls: [{ name: 'Silent', args: { request: 'x' } }] }, 'ok']);
    await runOnce(
      new LlmAgent({ name: 'Parent', model: parentModel, tools: [new AgentTool({ agent: silent })] }),
      'go',
    );
    const response = lastResponses(parentModel.requests[1]!)[0]!.response;
    expect(response).not.toEqual({});
    expect(response).toHaveProperty('result');
  });

  it("skipSummarization ends the caller's turn with the child's result, without another caller model call", async () => {
    const childModel = new ScriptedModel(['The final report.']);
    const reporter = new LlmAgent({ name: 'Reporter', model: childModel });
    const parentModel = new ScriptedModel([{ functionCalls: [{ name: 'Reporter', args: { request: 'report' } }] }]);
    const result = await runOnce(
      new LlmAgent({
        name: 'Parent',
        model: parentModel,
        tools: [new AgentTool({ agent: reporter, skipSummarization: true })],
      }),
      'go',
    );

    expect(result.status).toBe('completed');
    parentModel.assertDone();
    expect(parentModel.requests).toHaveLength(1);
    const last = result.events.at(-1)!;
    expect(last.author).toBe('Parent');
    expect(getFunctionResponses(last)[0]!.response).toEqual({ result: 'The final report.' });
    expect(last.actions.skipSummarization).toBe(true);
    expect(isFinalResponse(last)).toBe(true);
  });

  it('plugins and callbacks fire inside the child', async () => {
    const log: string[] = [];
    class Recorder extends BasePlugin {
      constructor() {
        super('recorder');
      }
      override beforeAgent({ agent }: { agent: { name: string } }) {
        log.push(`plugin.beforeAgent:${agent.name}`);
        return undefined;
      }
      override beforeModel({ context }: { context: { agentName: string } }) {
        log.push(`plugin.beforeModel:${context.agentName}`);
        return undefined;
      }
      override beforeTool({ tool, context }: { tool: { name: string }; context: { agentName: string } }) {
        log.push(`plugin.beforeTool:${context.agentName}:${tool.name}`);
        return undefined;
      }
    }
    const lookup = new FunctionTool({ name: 'lookup', description: 'looks up', execute: () => 'data' });
    const child = new LlmAgent({
      name: 'Child',
      model: new ScriptedModel([{ functionCalls: [{ name: 'lookup' }] }, 'child answer']),
      tools: [lookup],
      beforeAgentCallback: () => {
        log.push('child.beforeAgentCallback');
      },
      beforeModelCallback: () => {
        log.push('child.beforeModelCallback');
      },
      afterToolCallback: ({ response }) => ({ ...response, checked: true }),
    });
    const parentModel = new ScriptedModel([
      { functionCalls: [{ name: 'Child', args: { request: 'go' } }] },
      'parent answer',
    ]);
    const parent = new LlmAgent({ name: 'Parent', model: parentModel, tools: [new AgentTool({ agent: child })] });
    const result = await runOnce(parent, 'go', { plugins: [new Recorder()] });

    expect(result.status).toBe('completed');
    expect(log).toEqual([
      'plugin.beforeAgent:Parent',
      'plugin.beforeModel:Parent',
      'plugin.beforeTool:Parent:Child',
      'plugin.beforeAgent:Child',
      'child.beforeAgentCallback',
      'plugin.beforeModel:Child',
      'child.beforeModelCallback',
      'plugin.beforeTool:Child:lookup',
      'plugin.beforeModel:Child',
      'child.beforeModelCallback',
      'plugin.beforeModel:Parent',
    ]);
    const childToolResult = result.events.find((e) => e.author === 'Child' && getFunctionResponses(e).length > 0)!;
    expect(getFunctionResponses(childToolResult)[0]!.response).toEqual({ result: 'data', checked: true });
  });

  it('a plugin recovering from a model error inside the child gives the caller the recovered answer', async () => {
    class Fallback extends BasePlugin {
      constructor() {
        super('fallback');
      }
      override onModelError({ context }: { context: { agentName: string } }) {
        return context.agentName === 'Child'
          ? { content: { role: 'model' as const, parts: [{ text: 'recovered child answer' }] } }
          : undefined;
      }
    }
    const child = new LlmAgent({
      name: 'Child',
      model: new ScriptedModel([{ error: 'child model down', status: 503 }]),
    });
    const parentModel = new ScriptedModel([
      { functionCalls: [{ name: 'Child', args: { request: 'go' } }] },
      'parent answer',
    ]);
    const result = await runOnce(
      new LlmAgent({ name: 'Parent', model: parentModel, tools: [new AgentTool({ agent: child })] }),
      'go',
      { plugins: [new Fallback()] },
    );
    expect(result.status).toBe('completed');
    expect(lastResponses(parentModel.requests[1]!)[0]!.response).toEqual({ result: 'recovered child answer' });
  });

  it('the abort signal reaches the child: the run ends cancelled and the child stops', async () => {
    let childSignal: AbortSignal | undefined;
    let childStopped = false;
    // Both children wait until aborted; the test aborts once both are busy.
    const waiting = deferred();
    const calling = deferred();
    const waiter = new FunctionAgent({
      name: 'Waiter',
      run: async (_input, ctx) => {
        childSignal = ctx.abortSignal;
        await new Promise<void>((resolve) => {
          ctx.abortSignal.addEventListener('abort', () => {
            childStopped = true;
            resolve();
          });
          waiting.resolve();
        });
        return 'finished';
      },
    });
    const slowModel = new ScriptedModel([
      () => {
        calling.resolve();
        return { delayMs: 60_000, reply: 'too late' };
      },
    ]);
    const slowLlm = new LlmAgent({ name: 'SlowLlm', model: slowModel });
    const parentModel = new ScriptedModel([
      {
        functionCalls: [
          { name: 'Waiter', args: { request: 'x' } },
          { name: 'SlowLlm', args: { request: 'y' } },
        ],
      },
      'never',
    ]);
    const controller = new AbortController();
    void Promise.all([waiting.promise, calling.promise]).then(() => controller.abort());
    const result = await runOnce(
      new LlmAgent({
        name: 'Parent',
        model: parentModel,
        tools: [new AgentTool({ agent: waiter }), new AgentTool({ agent: slowLlm })],
      }),
      'go',
      {
        abortSignal: controller.signal,
      },
    );

    expect(result.status).toBe('cancelled');
    expect(childSignal?.aborted).toBe(true);
    expect(childStopped).toBe(true);
    expect(slowModel.requests).toHaveLength(1);
    expect(parentModel.requests).toHaveLength(1);
  });

  it('run limits count the calls made inside the child', async () => {
    const child = new LlmAgent({ name: 'Child', model: new ScriptedModel(['child answer']) });
    const parentModel = new ScriptedModel([
      { functionCalls: [{ name: 'Child', args: { request: 'go' } }] },
      'parent answer',
    ]);
    const result = await runOnce(
      new LlmAgent({ name: 'Parent', model: parentModel, tools: [new AgentTool({ agent: child })] }),
      'go',
      { runConfig: { maxLlmCalls: 2 } },
    );
    expect(result.status).toBe('limit');
    expect(result.stopReason).toBe('maxLlmCalls');
    expect(parentModel.requests).toHaveLength(1);
  });
});

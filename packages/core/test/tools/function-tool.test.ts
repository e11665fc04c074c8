import { describe, expect, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import {
  FunctionTool,
  InMemoryRunner,
  InvalidStateKeyError,
  LlmAgent,
  LoopAgent,
  SequentialAgent,
  exitLoop,
  getFunctionCalls,
  getFunctionResponses,
  isFinalResponse,
  type Content,
  type Event,
  type FunctionResponse,
  type LlmRequest,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { runOnce } from '../helpers.js';
import { barrier, deferred } from '../wait.js';

/** The function responses the model received in its most recent tool-results turn. */
function lastResponses(request: LlmRequest): FunctionResponse[] {
  const last = request.contents.at(-1)!;
  return last.parts.flatMap((p) => ('functionResponse' in p ? [p.functionResponse] : []));
}

function responseEvent(events: Event[]): Event {
  const found = events.find((e) => getFunctionResponses(e).length > 0);
  expect(found, 'a function-response event').toBeDefined();
  return found!;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

const weatherParameters = z.object({
  city: z.string().describe('City name'),
  days: z.number().int().min(1).max(7),
  units: z.enum(['metric', 'imperial']).optional(),
});

describe('FunctionTool with zod parameters', () => {
  it('validates and types the arguments, and the plain-object return value is the function response', async () => {
    const received: unknown[] = [];
    const forecast = new FunctionTool({
      name: 'get_forecast',
      description: 'Weather forecast for a city.',
      parameters: weatherParameters,
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<{ city: string; days: number; units?: 'metric' | 'imperial' | undefined }>();
        received.push(args);
        return { city: args.city, forecast: Array.from({ length: args.days }, () => 'sunny') };
      },
    });
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'get_forecast', args: { city: 'Oslo', days: 2 } }] },
      'Sunny in Oslo.',
    ]);
    const result = await runOnce(new LlmAgent({ name: 'Weather', model, tools: [forecast] }), 'weather in Oslo?');

    expect(result.status).toBe('completed');
    expect(received).toEqual([{ city: 'Oslo', days: 2 }]);
    expect(lastResponses(model.requests[1]!)).toEqual([
      { id: 'call_1_1', name: 'get_forecast', response: { city: 'Oslo', forecast: ['sunny', 'sunny'] } },
    ]);
    expect(getFunctionResponses(responseEvent(result.events))[0]!.response).toEqual({
      city: 'Oslo',
      forecast: ['sunny', 'sunny'],
    });
    expect(result.output).toBe('Sunny in Oslo.');
    model.assertDone();
  });

  it('the declaration sent to the model carries the JSON Schema made from the zod schema', async () => {
    const tool = new FunctionTool({
      name: 'get_forecast',
      description: 'Weather forecast for a city.',
      parameters: z.object({
        city: z.string().describe('City name'),
        days: z.number().int().min(1).max(7),
        units: z.enum(['metric', 'imperial']).optional(),
        place: z.object({ lat: z.number(), lon: z.number() }).optional(),
        tags: z.array(z.string()).optional(),
      }),
      execute: () => ({}),
    });
    const model = new ScriptedModel(['ok']);
    await runOnce(new LlmAgent({ name: 'Weather', model, tools: [tool] }), 'hi');

    const declarations = model.requests[0]!.config.tools!;
    expect(declarations.map((d) => d.name)).toEqual(['get_forecast']);
    const declaration = declarations[0]!;
    expect(declaration.description).toBe('Weather forecast for a city.');
    expect(declaration.parameters).toMatchObject({
      type: 'object',
      properties: {
        city: { type: 'string', description: 'City name' },
        days: { type: 'integer', minimum: 1, maximum: 7 },
        units: { type: 'string', enum: ['metric', 'imperial'] },
        place: {
          type: 'object',
          properties: { lat: { type: 'number' }, lon: { type: 'number' } },
          required: ['lat', 'lon'],
        },
        tags: { type: 'array', items: { type: 'string' } },
      },
    });
    expect([...(declaration.parameters!.required as string[])].sort()).toEqual(['city', 'days']);
    // The declaration is plain JSON, so it survives being sent over the wire.
    expect(JSON.parse(JSON.stringify(declaration))).toEqual(declaration);
  });

  it('invalid arguments: execute is not called, the model gets an error naming the tool and the field, and the run goes on', async () => {
    let calls = 0;
    const forecast = new FunctionTool({
      name: 'get_forecast',
      description: 'Weather forecast for a city.',
      parameters: weatherParameters,
      execute: () => {
        calls++;
        return { ok: true };
      },
    });
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'get_forecast', args: { city: 'Oslo', days: 'two' } }] },
      { functionCalls: [{ name: 'get_forecast', args: { days: 3 } }] },
      'Sorry, I could not get the forecast.',
    ]);
    const result = await runOnce(new LlmAgent({ name: 'Weather', model, tools: [forecast] }), 'weather?');

    expect(calls).toBe(0);
    expect(result.status).toBe('completed');
    expect(result.output).toBe('Sorry, I could not get the forecast.');
    const wrongType = lastResponses(model.requests[1]!)[0]!;
    expect(wrongType.name).toBe('get_forecast');
    expect(Object.keys(wrongType.response)).toEqual(['error']);
    expect(wrongType.response.error).toMatch(/get_forecast/);
    expect(wrongType.response.error).toMatch(/days/);
    const missing = lastResponses(model.requests[2]!)[0]!;
    expect(missing.response.error).toMatch(/get_forecast/);
    expect(missing.response.error).toMatch(/city/);
    model.assertDone();
  });
});

describe('FunctionTool with JSON Schema parameters', () => {
  const parameters = {
    type: 'object',
    properties: {
      city: { type: 'string', description: 'City name' },
      days: { type: 'integer', minimum: 1 },
    },
    required: ['city'],
    additionalProperties: false,
  };

  it('sends the schema as the declaration and validates the arguments with it', async () => {
    const received: unknown[] = [];
    const tool = new FunctionTool({
      name: 'get_forecast',
      description: 'Weather forecast for a city.',
      parameters,
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<Record<string, unknown>>();
        received.push(args);
        return `forecast for ${String(args.city)}`;
      },
    });
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'get_forecast', args: { city: 42 } }] },
      { functionCalls: [{ name: 'get_forecast', args: { days: 2 } }] },
      { functionCalls: [{ name: 'get_forecast', args: { city: 'Oslo', days: 2 } }] },
      'Done.',
    ]);
    const result = await runOnce(new LlmAgent({ name: 'Weather', model, tools: [tool] }), 'weather?');

    expect(model.requests[0]!.config.tools).toEqual([
      { name: 'get_forecast', description: 'Weather forecast for a city.', parameters },
    ]);
    expect(received).toEqual([{ city: 'Oslo', days: 2 }]);
    const wrongType = lastResponses(model.requests[1]!)[0]!.response;
    expect(wrongType.error).toMatch(/get_forecast/);
    expect(wrongType.error).toMatch(/city/);
    const missing = lastResponses(model.requests[2]!)[0]!.response;
    expect(missing.error).toMatch(/get_forecast/);
    expect(missing.error).toMatch(/city/);
    expect(lastResponses(model.requests[3]!)[0]!.response).toEqual({ result: 'forecast for Oslo' });
    expect(result.status).toBe('completed');
    model.assertDone();
  });
});

describe('tool results and errors', () => {
  it('a plain object is the response; any other value is sent as { result }', async () => {
    class Point {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {}
    }
    const values: Record<string, unknown> = {
      obj: { a: 1, nested: { b: [1, 2] } },
      num: 3,
      str: 'text',
      bool: false,
      nil: null,
      arr: [1, 'two'],
      point: new Point(1, 2),
    };
    const tools = Object.entries(values).map(
      ([name, value]) => new FunctionTool({ name, description: `returns ${name}`, execute: () => value }),
    );
    const model = new ScriptedModel([{ functionCalls: Object.keys(values).map((name) => ({ name })) }, 'ok']);
    await runOnce(new LlmAgent({ name: 'Returns', model, tools }), 'go');

    const responses = lastResponses(model.requests[1]!);
    expect(responses.map((r) => r.name)).toEqual(Object.keys(values));
    expect(responses[0]!.response).toEqual({ a: 1, nested: { b: [1, 2] } });
    expect(responses[1]!.response).toEqual({ result: 3 });
    expect(responses[2]!.response).toEqual({ result: 'text' });
    expect(responses[3]!.response).toEqual({ result: false });
    expect(responses[4]!.response).toEqual({ result: null });
    expect(responses[5]!.response).toEqual({ result: [1, 'two'] });
    expect(Object.keys(responses[6]!.response)).toEqual(['result']);
    expect(responses[6]!.response.result).toMatchObject({ x: 1, y: 2 });
  });

  it('async tools: the resolved value is the response', async () => {
    const tool = new FunctionTool({
      name: 'slow_sum',
      description: 'adds slowly',
      parameters: z.object({ a: z.number(), b: z.number() }),
      execute: async ({ a, b }) => {
        await sleep(5);
        return a + b;
      },
    });
    const model = new ScriptedModel([{ functionCalls: [{ name: 'slow_sum', args: { a: 2, b: 5 } }] }, 'seven']);
    await runOnce(new LlmAgent({ name: 'Calc', model, tools: [tool] }), 'go');
    expect(lastResponses(model.requests[1]!)[0]!.response).toEqual({ result: 7 });
  });

  it('a thrown error (sync, async or not an Error) goes back to the model as { error: message } and the run goes on', async () => {
    const tools = [
      new FunctionTool({
        name: 'sync_throw',
        description: 'fails',
        execute: () => {
          throw new Error('disk is full');
        },
      }),
      new FunctionTool({
        name: 'async_reject',
        description: 'fails',
        execute: async () => {
          await sleep(1);
          throw new TypeError('bad input shape');
        },
      }),
      new FunctionTool({
        name: 'throw_string',
        description: 'fails',
        execute: () => {
          throw 'plain string failure';
        },
      }),
    ];
    const model = new ScriptedModel([
      { functionCalls: tools.map((t) => ({ name: t.name })) },
      'All three tools failed.',
    ]);
    const result = await runOnce(new LlmAgent({ name: 'Fragile', model, tools }), 'go');

    expect(result.status).toBe('completed');
    expect(result.output).toBe('All three tools failed.');
    expect(lastResponses(model.requests[1]!).map((r) => r.response)).toEqual([
      { error: 'disk is full' },
      { error: 'bad input shape' },
      { error: 'plain string failure' },
    ]);
    expect(result.events.some((e) => e.errorCode !== undefined)).toBe(false);
  });

  it('several calls of one turn run concurrently and their responses come back in call order', async () => {
    const finished: string[] = [];
    // All three start before any finishes (each waits for the others), then they finish in reverse
    // call order: 'fast' at once, 'medium' after it, 'slow' last.
    const allStarted = barrier(3, 'tool calls running at once');
    const done = { slow: deferred(), medium: deferred(), fast: deferred() };
    const after: Record<string, Promise<void>> = {
      slow: done.medium.promise,
      medium: done.fast.promise,
      fast: Promise.resolve(),
    };
    const tools = (['slow', 'medium', 'fast'] as const).map(
      (name) =>
        new FunctionTool({
          name,
          description: `finishes ${name === 'fast' ? 'first' : name === 'medium' ? 'second' : 'last'}`,
          execute: async () => {
            await allStarted.arrive();
            await after[name];
            finished.push(name);
            done[name].resolve();
            return { name };
          },
        }),
    );
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'slow' }, { name: 'medium' }, { name: 'fast' }] },
      'done',
    ]);
    const result = await runOnce(new LlmAgent({ name: 'Busy', model, tools }), 'go');

    // They ran at once and finished in reverse order ...
    expect(finished).toEqual(['fast', 'medium', 'slow']);
    // ... and the responses are still in call order, in one event.
    expect(lastResponses(model.requests[1]!).map((r) => [r.name, r.response])).toEqual([
      ['slow', { name: 'slow' }],
      ['medium', { name: 'medium' }],
      ['fast', { name: 'fast' }],
    ]);
    const responses = result.events.filter((e) => getFunctionResponses(e).length > 0);
    expect(responses).toHaveLength(1);
    expect(getFunctionResponses(responses[0]!).map((r) => r.id)).toEqual(
      getFunctionCalls(result.events[0]!).map((c) => c.id),
    );
  });

  it('a call to a tool the agent does not offer gets an error naming the offered tools, and the run goes on', async () => {
    const lookup = new FunctionTool({ name: 'lookup', description: 'looks up', execute: () => 'found' });
    const search = new FunctionTool({ name: 'search', description: 'searches', execute: () => 'results' });
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'delete_everything', args: { really: true } }, { name: 'lookup' }] },
      'I used lookup instead.',
    ]);
    const result = await runOnce(new LlmAgent({ name: 'Careful', model, tools: [lookup, search] }), 'go');

    expect(result.status).toBe('completed');
    expect(result.output).toBe('I used lookup instead.');
    const [unknown, known] = lastResponses(model.requests[1]!);
    expect(unknown!.name).toBe('delete_everything');
    expect(Object.keys(unknown!.response)).toEqual(['error']);
    expect(unknown!.response.error).toMatch(/delete_everything/);
    expect(unknown!.response.error).toMatch(/lookup/);
    expect(unknown!.response.error).toMatch(/search/);
    expect(known!.response).toEqual({ result: 'found' });
  });
});

describe('tool context', () => {
  it('gives the call id, agent name, invocation id, abort signal and current state', async () => {
    const seen: Record<string, unknown>[] = [];
    const inspect = new FunctionTool({
      name: 'inspect',
      description: 'looks at its context',
      execute: (_args, ctx) => {
        seen.push({
          functionCallId: ctx.functionCallId,
          agentName: ctx.agentName,
          invocationId: ctx.invocationId,
          aborted: ctx.abortSignal.aborted,
          topic: ctx.state.get('topic'),
          user: ctx.state.get('user:name'),
        });
        return 'ok';
      },
    });
    const model = new ScriptedModel([{ functionCalls: [{ name: 'inspect', id: 'my-call' }] }, 'done']);
    const result = await runOnce(new LlmAgent({ name: 'Inspector', model, tools: [inspect] }), 'go', {
      state: { topic: 'tides', 'user:name': 'Alice' },
    });

    expect(seen).toEqual([
      {
        functionCallId: 'my-call',
        agentName: 'Inspector',
        invocationId: result.events[0]!.invocationId,
        aborted: false,
        topic: 'tides',
        user: 'Alice',
      },
    ]);
    expect(result.events[0]!.invocationId).not.toBe('');
  });

  it('state.set is recorded as the stateDelta of the function-response event and stored', async () => {
    const remember = new FunctionTool({
      name: 'remember',
      description: 'stores a fact',
      parameters: z.object({ key: z.string(), value: z.string() }),
      execute: ({ key, value }, ctx) => {
        ctx.state.set(key, value);
        // A tool reads its own writes at once.
        return { stored: ctx.state.get(key) };
      },
    });
    const model = new ScriptedModel([
      {
        functionCalls: [
          { name: 'remember', args: { key: 'color', value: 'blue' } },
          { name: 'remember', args: { key: 'user:city', value: 'Oslo' } },
        ],
      },
      'Noted.',
    ]);
    const result = await runOnce(new LlmAgent({ name: 'Memory', model, tools: [remember] }), 'remember');

    const event = responseEvent(result.events);
    expect(event.actions.stateDelta).toEqual({ color: 'blue', 'user:city': 'Oslo' });
    expect(getFunctionResponses(event).map((r) => r.response)).toEqual([{ stored: 'blue' }, { stored: 'Oslo' }]);
    expect(result.events[0]!.actions.stateDelta).toEqual({});
    expect(result.state).toMatchObject({ color: 'blue', 'user:city': 'Oslo' });
    const stored = await result.runner.sessionService.getSession({
      appName: result.runner.appName,
      userId: 'u',
      sessionId: result.sessionId,
    });
    expect(stored!.state).toEqual({ color: 'blue', 'user:city': 'Oslo' });
    expect(stored!.events.find((e) => e.id === event.id)!.actions.stateDelta).toEqual({
      color: 'blue',
      'user:city': 'Oslo',
    });
  });

  it('ctx.actions.skipSummarization ends the turn with the tool result, without another model call', async () => {
    const report = new FunctionTool({
      name: 'final_report',
      description: 'returns the report as is',
      execute: (_args, ctx) => {
        ctx.actions.skipSummarization = true;
        return { report: 'all good' };
      },
    });
    const model = new ScriptedModel([{ functionCalls: [{ name: 'final_report' }] }]);
    const after = new LlmAgent({ name: 'After', model: new ScriptedModel(['after ran']) });
    const result = await runOnce(
      new SequentialAgent({
        name: 'Flow',
        subAgents: [new LlmAgent({ name: 'Reporter', model, tools: [report] }), after],
      }),
      'go',
    );

    expect(result.status).toBe('completed');
    expect(model.requests).toHaveLength(1);
    const reporterEvents = result.events.filter((e) => e.author === 'Reporter');
    const last = reporterEvents.at(-1)!;
    expect(getFunctionResponses(last)[0]!.response).toEqual({ report: 'all good' });
    expect(last.actions.skipSummarization).toBe(true);
    expect(isFinalResponse(last)).toBe(true);
    // Only the LlmAgent's turn ends; the workflow goes on.
    expect(result.output).toBe('after ran');
    model.assertDone();
  });

  it('exitLoop ends the enclosing loop right after the call; the pipeline around it goes on', async () => {
    const model = new ScriptedModel(['draft 1', 'draft 2', { functionCalls: [{ name: 'exit_loop' }] }]);
    const refiner = new LlmAgent({ name: 'Refiner', model, tools: [exitLoop] });
    const publish = new LlmAgent({ name: 'Publisher', model: new ScriptedModel(['published']) });
    const result = await runOnce(
      new SequentialAgent({
        name: 'Pipeline',
        subAgents: [new LoopAgent({ name: 'Refine', maxIterations: 10, subAgents: [refiner] }), publish],
      }),
      'go',
    );

    expect(model.requests[0]!.config.tools!.map((t) => t.name)).toEqual(['exit_loop']);
    expect(model.requests).toHaveLength(3);
    const exitEvent = responseEvent(result.events);
    expect(getFunctionResponses(exitEvent)[0]!.name).toBe('exit_loop');
    expect(exitEvent.actions.escalate).toBe(true);
    const loopEnd = result.events.find((e) => e.author === 'Refine' && e.actions.agentState?.stopReason !== undefined);
    expect(loopEnd!.actions.agentState!.stopReason).toBe('escalated');
    expect(result.output).toBe('published');
    model.assertDone();
  });

  it("setting the state key '__proto__' in a tool fails the run with a stored error event instead of dropping it", async () => {
    const evil = new FunctionTool({
      name: 'evil',
      description: 'tries to pollute',
      execute: (_args, ctx) => {
        ctx.state.set('__proto__', { polluted: true });
        return 'done';
      },
    });
    const model = new ScriptedModel([{ functionCalls: [{ name: 'evil' }] }, 'should not be asked']);
    const result = await runOnce(new LlmAgent({ name: 'Evil', model, tools: [evil] }), 'go');

    expect(result.status).toBe('failed');
    expect(result.error).toBeInstanceOf(InvalidStateKeyError);
    expect(result.error!.message).toMatch(/__proto__/);
    expect(model.requests).toHaveLength(1);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
    const stored = await result.runner.sessionService.getSession({
      appName: result.runner.appName,
      userId: 'u',
      sessionId: result.sessionId,
    });
    const last = stored!.events.at(-1)!;
    expect(last.errorCode).toBe('INVALID_STATE_KEY');
    expect(last.errorMessage).toMatch(/__proto__/);
    expect(stored!.events.some((e) => getFunctionResponses(e).length > 0)).toBe(false);
  });
});

describe('tools in a live run', () => {
  it('the function call, tool results and final answer are streamed in order', async () => {
    const tool = new FunctionTool({ name: 'ping', description: 'pings', execute: () => 'pong' });
    const model = new ScriptedModel([
      { functionCalls: [{ name: 'ping' }], text: 'Let me check.' },
      'It answered pong.',
    ]);
    const runner = new InMemoryRunner({ agent: new LlmAgent({ name: 'Pinger', model, tools: [tool] }) });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    const kinds: string[] = [];
    for await (const event of runner.runAsync({ userId: 'u', sessionId: session.id, newMessage: 'ping it' })) {
      const content: Content | undefined = event.content;
      kinds.push(
        getFunctionCalls(event).length
          ? 'call'
          : getFunctionResponses(event).length
            ? 'response'
            : `text:${content?.parts.map((p) => ('text' in p ? p.text : '')).join('')}`,
      );
    }
    expect(kinds).toEqual(['call', 'response', 'text:It answered pong.']);
  });
});

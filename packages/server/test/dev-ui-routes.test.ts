import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { InMemorySessionService, LlmAgent, Runner, userContent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { createApp, type WireEvent } from '../src/index.js';
import type { SessionSummary, WireTraceSpan } from '../src/dev-ui-wire.js';
import { TraceCollector } from '../src/trace-collector.js';
import { rootAgent as scout } from './e2e/fixtures/debug-apps/scout/agent.js';
import { call, createSession, expectError } from './helpers.js';

// The routes the dev UI reads besides ADK's session and run routes: the debug traces (what each
// model call was sent and answered), session summaries, the root agent's input schema, and eval sets.

const agentsDir = fileURLToPath(new URL('./e2e/fixtures/debug-apps', import.meta.url));

function scoutApp() {
  return createApp({ apps: { scout }, agentsDir, sessionService: new InMemorySessionService(), traces: true });
}

async function run(app: ReturnType<typeof createApp>, sessionId: string, text: string): Promise<WireEvent[]> {
  const res = await call(app, 'POST', '/run', {
    appName: 'scout',
    userId: 'ada',
    sessionId,
    newMessage: { role: 'user', parts: [{ text }] },
  });
  expect(res.status).toBe(200);
  return (await res.json()) as WireEvent[];
}

describe('GET /debug/trace/{event_id} and /debug/trace/session/{id}', () => {
  it('keep each model call with the request it was sent (secrets masked) and its response, by the event it produced', async () => {
    const app = scoutApp();
    const session = await createSession(app, 'scout', 'ada');
    const events = await run(app, session.id, 'Weather in Oslo');
    const answer = events.find((e) => e.content?.parts.some((p) => 'text' in p && p.text.includes('Forecast')))!;
    const call1 = events.find((e) => e.content?.parts.some((p) => 'functionCall' in p))!;

    const res = await call(app, 'GET', `/debug/trace/${answer.id}`);
    expect(res.status).toBe(200);
    const attributes = (await res.json()) as Record<string, string>;
    expect(attributes['gcp.vertex.agent.event_id']).toBe(answer.id);
    expect(attributes['gcp.vertex.agent.invocation_id']).toBe(answer.invocationId);
    const request = JSON.parse(attributes['gcp.vertex.agent.llm_request']!) as {
      model: string;
      contents: { role: string; parts: Record<string, unknown>[] }[];
      config: { systemInstruction: string; tools: { name: string }[] };
    };
    expect(request.model).toBe('scout-model-1');
    expect(request.config.systemInstruction).toContain('You are Scout');
    expect(request.config.systemInstruction).not.toContain('DEVUITEST0123456789abcdef');
    expect(request.config.tools.map((t) => t.name)).toEqual(['lookup_weather']);
    // The second call saw the user's message, its own call and the tool's result.
    expect(request.contents.map((c) => Object.keys(c.parts[0]!)[0])).toEqual([
      'text',
      'functionCall',
      'functionResponse',
    ]);
    const response = JSON.parse(attributes['gcp.vertex.agent.llm_response']!) as {
      content: { parts: { text: string }[] };
    };
    expect(response.content.parts[0]!.text).toContain('The sky over **Oslo**');

    // The first call produced the function-call event.
    const first = (await (await call(app, 'GET', `/debug/trace/${call1.id}`)).json()) as Record<string, string>;
    expect(JSON.parse(first['gcp.vertex.agent.llm_request']!).contents).toHaveLength(1);

    // A tool result is no model's answer.
    const toolResult = events.find((e) => e.content?.parts.some((p) => 'functionResponse' in p))!;
    await expectError(await call(app, 'GET', `/debug/trace/${toolResult.id}`), 404, 'NOT_FOUND');

    const spans = (await (await call(app, 'GET', `/debug/trace/session/${session.id}`)).json()) as WireTraceSpan[];
    expect(spans.map((s) => s.name)).toEqual([
      'invoke_agent Scout',
      'call_llm',
      'execute_tool lookup_weather',
      'call_llm',
    ]);
    const [agent, ...inner] = spans;
    for (const span of inner) expect(span.parent_span_id).toBe(agent!.span_id);
    for (const span of spans) {
      expect(span.trace_id).toBe(answer.invocationId);
      expect(span.end_time).toBeGreaterThanOrEqual(span.start_time);
    }
    expect(JSON.parse(spans[2]!.attributes['gcp.vertex.agent.tool_response'] as string)).toEqual({
      city: 'Oslo',
      sky: 'clear',
    });
  });

  it("a user's token sees only that user's spans", async () => {
    const app = createApp({
      apps: { scout },
      sessionService: new InMemorySessionService(),
      auth: { tokens: { 'ada-token': 'ada', 'bob-token': 'bob' } },
      traces: true,
    });
    const ada = { Authorization: 'Bearer ada-token' };
    const bob = { Authorization: 'Bearer bob-token' };
    const session = await createSession(app, 'scout', 'ada', undefined, ada);
    const res = await call(
      app,
      'POST',
      '/run',
      {
        appName: 'scout',
        userId: 'ada',
        sessionId: session.id,
        newMessage: { role: 'user', parts: [{ text: 'Oslo' }] },
      },
      ada,
    );
    const events = (await res.json()) as WireEvent[];
    const answer = events.at(-1)!;
    expect((await call(app, 'GET', `/debug/trace/${answer.id}`, undefined, ada)).status).toBe(200);
    await expectError(await call(app, 'GET', `/debug/trace/${answer.id}`, undefined, bob), 403, 'FORBIDDEN');
    expect(await (await call(app, 'GET', `/debug/trace/session/${session.id}`, undefined, bob)).json()).toEqual([]);
    await expectError(await call(app, 'GET', `/debug/trace/session/${session.id}`), 401, 'UNAUTHORIZED');
  });
});

describe('traces off (an API server without the dev UI)', () => {
  it('keeps none and says how to turn them on', async () => {
    const app = createApp({ apps: { scout }, sessionService: new InMemorySessionService() });
    const session = await createSession(app, 'scout', 'ada');
    const events = await run(app, session.id, 'Weather in Oslo');
    const res = await call(app, 'GET', `/debug/trace/${events.at(-1)!.id}`);
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('traces: true');
    expect((await call(app, 'GET', `/debug/trace/session/${session.id}`)).status).toBe(404);
  });
});

describe('GET /apps/{app}/users/{user}/session_summaries', () => {
  it('names each session after its first message, newest first, with its start and last update', async () => {
    const app = scoutApp();
    const first = await createSession(app, 'scout', 'ada');
    await run(app, first.id, 'Weather in Oslo, and please be thorough about the wind and the clouds today');
    const empty = await createSession(app, 'scout', 'ada');
    const summaries = (await (
      await call(app, 'GET', '/apps/scout/users/ada/session_summaries')
    ).json()) as SessionSummary[];
    expect(summaries.map((s) => s.id)).toEqual([empty.id, first.id]);
    expect(summaries[1]!.title).toBe('Weather in Oslo, and please be thorough about the wind and…');
    expect(summaries[1]!.startTime).toBeLessThanOrEqual(summaries[1]!.lastUpdateTime);
    expect(summaries[1]!.eventCount).toBe(4); // message, call, result, answer
    expect(summaries[0]).toMatchObject({ title: '', eventCount: 0 });
  });
});

describe('GET /apps/{app}/input_schema', () => {
  it("is the root agent's inputSchema as JSON Schema, or null", async () => {
    const app = createApp({ agentsDir, sessionService: new InMemorySessionService() });
    const schema = (await (await call(app, 'GET', '/apps/scout/input_schema')).json()) as { required: string[] };
    expect(schema.required).toEqual(['city']);
    expect(await (await call(app, 'GET', '/apps/pipeline/input_schema')).json()).toBeNull();
  });
});

describe('GET /apps/{app}/eval_sets and POST .../run_eval', () => {
  it("lists the app folder's eval sets and runs one, with each case's result and scores", async () => {
    const app = scoutApp();
    expect(await (await call(app, 'GET', '/apps/scout/eval_sets')).json()).toEqual(['forecast']);
    const res = await call(app, 'POST', '/apps/scout/eval_sets/forecast/run_eval', {});
    expect(res.status).toBe(200);
    const report = (await res.json()) as {
      passed: boolean;
      cases: { evalId: string; passed: boolean; metrics: { metric: string; score: number }[] }[];
    };
    expect(report.passed).toBe(false);
    expect(report.cases.map((c) => [c.evalId, c.passed])).toEqual([
      ['oslo', true],
      ['lima-expects-rain', false],
    ]);
    expect(report.cases[0]!.metrics.every((m) => m.score === 1)).toBe(true);
    const only = await call(app, 'POST', '/apps/scout/eval_sets/forecast/run_eval', { evalIds: ['oslo'] });
    expect(((await only.json()) as { passed: boolean }).passed).toBe(true);
    await expectError(await call(app, 'POST', '/apps/scout/eval_sets/..%2Fsecrets/run_eval', {}), 404, 'NOT_FOUND');
    await expectError(
      await call(app, 'POST', '/apps/scout/eval_sets/forecast/run_eval', { evalIds: 'oslo' }),
      400,
      'INVALID_REQUEST',
    );
  });
});

describe('TraceCollector bounds and masking', () => {
  it('forgets the oldest invocations beyond its bound, and masks the secrets the server was given', async () => {
    const traces = new TraceCollector({ invocationsPerApp: 2 });
    const agent = new LlmAgent({
      name: 'Keeper',
      model: new ScriptedModel(['one', 'two', 'three']),
      instruction: 'The vault code is vault-code-7731.',
    });
    const runner = new Runner({
      appName: 'vault',
      agent,
      sessionService: new InMemorySessionService(),
      plugins: [traces.plugin()],
      secrets: ['vault-code-7731'],
    });
    const session = await runner.sessionService.createSession({ appName: 'vault', userId: 'ada' });
    const answers: string[] = [];
    for (const text of ['a', 'b', 'c']) {
      const result = await runner.run({ userId: 'ada', sessionId: session.id, newMessage: userContent(text) });
      answers.push(result.events.at(-1)!.id);
    }
    expect(traces.spanOfEvent(answers[0]!)).toBeUndefined();
    const kept = traces.spanOfEvent(answers[2]!)!;
    expect(JSON.stringify(kept.llmRequest)).toContain('The vault code is ***.');
    expect(JSON.stringify(kept.llmRequest)).not.toContain('7731');
    expect(new Set(traces.sessionSpans(session.id).map((s) => s.invocationId)).size).toBe(2);
  });

  it("ends a model call the agent's own beforeModelCallback answered, when its agent ends", async () => {
    const traces = new TraceCollector();
    const agent = new LlmAgent({
      name: 'Cached',
      model: new ScriptedModel([]),
      beforeModelCallback: () => ({ content: { role: 'model', parts: [{ text: 'from the cache' }] } }),
    });
    const runner = new Runner({
      appName: 'cache',
      agent,
      sessionService: new InMemorySessionService(),
      plugins: [traces.plugin()],
    });
    const session = await runner.sessionService.createSession({ appName: 'cache', userId: 'ada' });
    await runner.run({ userId: 'ada', sessionId: session.id, newMessage: userContent('hi') });
    const spans = traces.sessionSpans(session.id);
    expect(spans.map((s) => [s.kind, s.status])).toEqual([
      ['agent', 'completed'],
      ['model', 'skipped'],
    ]);
    for (const span of spans) expect(span.endTime).toBeGreaterThanOrEqual(span.startTime);
  });
});

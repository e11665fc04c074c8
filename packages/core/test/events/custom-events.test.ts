import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  BaseAgent,
  ConfigurationError,
  FunctionTool,
  InMemoryRunner,
  LlmAgent,
  Workflow,
  isFinalResponse,
  node,
  type Event,
  type InvocationContext,
} from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { runOnce } from '../helpers.js';

/** author|custom name|data, or author|text for content events, in stored order. */
function lines(events: Event[]): string[] {
  return events.flatMap((e) => {
    if (e.customEvent) return [`${e.author} ~ ${e.customEvent.name} ${JSON.stringify(e.customEvent.data)}`];
    const text = e.content?.parts
      .map((p) =>
        'text' in p
          ? p.text
          : 'functionCall' in p
            ? `call ${p.functionCall.name}`
            : 'functionResponse' in p
              ? `result ${p.functionResponse.name}`
              : '',
      )
      .join('');
    return text ? [`${e.author}: ${text}`] : [];
  });
}

describe('ctx.emit: custom events', () => {
  it('a tool emits progress: stored in order between the call and its result, in RunResult.events, never in a model request', async () => {
    const search = new FunctionTool({
      name: 'search',
      description: 'Searches.',
      parameters: z.object({ q: z.string() }),
      execute: async ({ q }, ctx) => {
        await ctx.emit('search.progress', { searched: 1, of: 2 });
        await ctx.emit('search.progress', { searched: 2, of: 2 });
        return { hits: [`${q} result`] };
      },
    });
    const model = new ScriptedModel([{ functionCalls: [{ name: 'search', args: { q: 'oslo' } }] }, 'Found it.']);
    const agent = new LlmAgent({ name: 'finder', model, instruction: 'Find things.', tools: [search] });
    const result = await runOnce(agent, 'find oslo');

    expect(lines(result.events)).toEqual([
      'finder: call search',
      'finder ~ search.progress {"searched":1,"of":2}',
      'finder ~ search.progress {"searched":2,"of":2}',
      'finder: result search',
      'finder: Found it.',
    ]);
    const session = await result.runner.sessionService.getSession({
      appName: result.runner.appName,
      userId: 'u',
      sessionId: result.sessionId,
    });
    expect(lines(session!.events).filter((l) => l.includes('~'))).toHaveLength(2);
    // The second model call saw the call and its result, and nothing of the custom events.
    expect(JSON.stringify(model.requests[1]!.contents)).not.toContain('search.progress');
    expect(JSON.stringify(model.requests[1]!.contents)).not.toContain('searched');
    expect(result.output).toBe('Found it.');
    for (const e of result.events.filter((e) => e.customEvent)) {
      expect(isFinalResponse(e)).toBe(false);
      expect(e.content).toBeUndefined();
      expect(e.actions.stateDelta).toEqual({});
    }
  });

  it('an agent, its callbacks and a custom agent emit as themselves, in order', async () => {
    class Counter extends BaseAgent {
      protected async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, undefined> {
        await ctx.emit('tick', 1);
        yield this.createEvent(ctx, { content: { role: 'model', parts: [{ text: 'one' }] }, output: 'one' });
        await ctx.emit('tick', 2);
        await ctx.emit('done');
      }
    }
    const counter = new Counter({
      name: 'counter',
      beforeAgentCallback: async (cb) => void (await cb.emit('starting', { at: 'before' })),
    });
    const result = await runOnce(counter, 'go');
    expect(lines(result.events)).toEqual([
      'counter ~ starting {"at":"before"}',
      'counter ~ tick 1',
      'counter: one',
      'counter ~ tick 2',
      'counter ~ done undefined',
    ]);
    expect(result.events.at(-1)!.customEvent).toEqual({ name: 'done' });
    expect(result.output).toBe('one');
  });

  it('a workflow node emits with its nodeInfo; its state write still goes out with its output, not on the custom event', async () => {
    const step = node(
      async (ctx, input: string) => {
        ctx.state.set('seen', input);
        await ctx.emit('step.progress', { phase: 'half' });
        return `${input}!`;
      },
      { name: 'step' },
    );
    const workflow = new Workflow({ name: 'wf', edges: [['START', step]] });
    const result = await runOnce(workflow, 'hi');
    const custom = result.events.filter((e) => e.customEvent);
    expect(custom).toHaveLength(1);
    expect(custom[0]).toMatchObject({
      author: 'step',
      customEvent: { name: 'step.progress', data: { phase: 'half' } },
      nodeInfo: { path: 'wf.step' },
    });
    expect(custom[0]!.actions.stateDelta).toEqual({});
    const output = result.events.find((e) => e.author === 'step' && e.output === 'hi!');
    expect(output!.actions.stateDelta).toEqual({ seen: 'hi' });
    expect(result.output).toBe('hi!');
    expect(result.state.seen).toBe('hi');
  });

  it('data is stored as JSON round-trips it, and a resumed session reads it back unchanged', async () => {
    const when = new Date('2026-01-02T03:04:05.000Z');
    class Once extends BaseAgent {
      protected async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, undefined> {
        await ctx.emit('stamp', { when, list: [1, 'two', null], skip: undefined });
        yield this.createEvent(ctx, { content: { role: 'model', parts: [{ text: 'ok' }] } });
      }
    }
    const runner = new InMemoryRunner({ agent: new Once({ name: 'once' }) });
    const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
    await runner.run({ userId: 'u', sessionId: session.id, newMessage: 'go' });
    const stored = await runner.sessionService.getSession({
      appName: runner.appName,
      userId: 'u',
      sessionId: session.id,
    });
    expect(stored!.events.find((e) => e.customEvent)!.customEvent).toEqual({
      name: 'stamp',
      data: { when: '2026-01-02T03:04:05.000Z', list: [1, 'two', null] },
    });
  });

  it('a bad name or data fails the emit with a ConfigurationError naming the event and the fix; nothing is stored', async () => {
    const errors: unknown[] = [];
    class Bad extends BaseAgent {
      protected async *runAsyncImpl(ctx: InvocationContext): AsyncGenerator<Event, void, undefined> {
        const cyclic: Record<string, unknown> = {};
        cyclic.self = cyclic;
        for (const attempt of [
          () => ctx.emit(''),
          () => ctx.emit(42 as unknown as string),
          () => ctx.emit('fn', () => 1),
          () => ctx.emit('big', 10n),
          () => ctx.emit('loop', cyclic),
        ]) {
          await attempt().catch((error: unknown) => errors.push(error));
        }
        yield this.createEvent(ctx, { content: { role: 'model', parts: [{ text: 'survived' }] } });
      }
    }
    const result = await runOnce(new Bad({ name: 'bad' }), 'go');
    expect(lines(result.events)).toEqual(['bad: survived']);
    expect(result.events.some((e) => e.customEvent)).toBe(false);
    expect(errors).toHaveLength(5);
    for (const error of errors) expect(error).toBeInstanceOf(ConfigurationError);
    const messages = errors.map((e) => (e as Error).message);
    expect(messages[0]).toMatch(
      /ctx\.emit\(''\) in agent 'bad': the event name '' is not usable\. Pass a non-empty string/,
    );
    expect(messages[1]).toMatch(/the event name number is not usable/);
    expect(messages[2]).toMatch(/custom event 'fn' is not JSON-serialisable \(a function\)/);
    expect(messages[3]).toMatch(/custom event 'big' is not JSON-serialisable \(a bigint\)/);
    expect(messages[4]).toMatch(/custom event 'loop' is not JSON-serialisable \(.*circular.*\)/i);
  });
});

import { describe, expect, it } from 'vitest';
import {
  FunctionAgent,
  FunctionTool,
  InMemoryRunner,
  InputValidationError,
  InvalidStateKeyError,
  LlmAgent,
  getFunctionResponses,
  type BaseAgent,
} from '../../src/index.js';
import { ScriptedModel } from '../../src/testing/index.js';
import { findForbiddenKey } from '../../src/utils/forbidden-keys.js';

// Regression: '__proto__', 'constructor' and 'prototype' were refused only as top-level state
// keys; nested inside a value (as JSON.parse makes them: own properties) they passed.

const json = (text: string): Record<string, unknown> => JSON.parse(text) as Record<string, unknown>;

async function setup(agent: BaseAgent = new FunctionAgent({ name: 'echo', run: () => 'ok' })) {
  const runner = new InMemoryRunner({ agent });
  const session = await runner.sessionService.createSession({ appName: runner.appName, userId: 'u' });
  const stored = async () =>
    (await runner.sessionService.getSession({ appName: runner.appName, userId: 'u', sessionId: session.id }))!;
  return { runner, sessionId: session.id, stored };
}

describe('prototype-polluting keys at any depth', () => {
  it('a stateDelta with __proto__ or constructor nested in a value is refused, naming the path; nothing is stored', async () => {
    const { runner, sessionId, stored } = await setup();
    for (const [delta, message] of [
      [
        json('{"config": {"nested": {"__proto__": {"polluted": true}}}}'),
        "State key 'config' holds the key '__proto__' at config.nested.__proto__",
      ],
      [
        json('{"user:items": [1, {"constructor": {"prototype": {}}}]}'),
        "State key 'user:items' holds the key 'constructor' at user:items[1].constructor",
      ],
      [
        json('{"odd": {"a key": {"prototype": 1}}}'),
        `State key 'odd' holds the key 'prototype' at odd["a key"].prototype`,
      ],
    ] as const) {
      const error: unknown = await runner
        .run({ userId: 'u', sessionId, newMessage: 'hi', stateDelta: delta })
        .catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidStateKeyError);
      expect((error as Error).message).toContain(message);
      expect((error as Error).message).toContain('Rename that key.');
    }
    expect((await stored()).events).toEqual([]);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('createSession refuses an initial state with a nested forbidden key', async () => {
    const { runner } = await setup();
    await expect(
      runner.sessionService.createSession({
        appName: runner.appName,
        userId: 'u',
        state: json('{"a": {"b": {"__proto__": {}}}}'),
      }),
    ).rejects.toThrow("State key 'a' holds the key '__proto__' at a.b.__proto__");
  });

  it('a tool that writes a nested forbidden key with ctx.state.set fails the run at the set', async () => {
    const writer = new FunctionTool({
      name: 'save',
      description: 'Saves.',
      execute: (_args, ctx) => {
        ctx.state.set('saved', { deep: [{ prototype: { x: 1 } }] });
        return { ok: true };
      },
    });
    const { runner, sessionId } = await setup(
      new LlmAgent({
        name: 'A',
        model: new ScriptedModel([{ functionCalls: [{ name: 'save', args: {} }] }, 'done']),
        tools: [writer],
      }),
    );
    const result = await runner.run({ userId: 'u', sessionId, newMessage: 'save' });
    expect(result.status).toBe('failed');
    expect(result.events.at(-1)).toMatchObject({ errorCode: 'INVALID_STATE_KEY' });
    expect(result.events.at(-1)!.errorMessage).toContain(
      "State key 'saved' holds the key 'prototype' at saved.deep[0].prototype",
    );
  });

  it("a run's input with a nested forbidden key is refused before anything is stored", async () => {
    const { runner, sessionId, stored } = await setup();
    const error: unknown = await runner
      .run({ userId: 'u', sessionId, input: json('{"order": {"lines": [{"__proto__": {"admin": true}}]}}') })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputValidationError);
    expect((error as Error).message).toBe(
      "The run's input holds the key '__proto__' at input.order.lines[0].__proto__: '__proto__', 'constructor' and 'prototype' are refused at any depth, since merging them could pollute object prototypes. Rename that key; nothing was run or stored.",
    );
    expect((await stored()).events).toEqual([]);
  });

  it('tool arguments with a nested forbidden key: the tool does not run, the model gets an error response naming the path', async () => {
    let ran = false;
    const tool = new FunctionTool({
      name: 'update',
      description: 'Updates.',
      execute: () => {
        ran = true;
        return { ok: true };
      },
    });
    const args = json('{"patch": {"__proto__": {"isAdmin": true}}}');
    const model = new ScriptedModel([{ functionCalls: [{ name: 'update', args }] }, 'Could not update.']);
    const { runner, sessionId } = await setup(new LlmAgent({ name: 'A', model, tools: [tool] }));
    const result = await runner.run({ userId: 'u', sessionId, newMessage: 'update' });
    expect(ran).toBe(false);
    expect(result.status).toBe('completed');
    expect(result.events.flatMap(getFunctionResponses)[0]!.response).toEqual({
      error:
        "Tool 'update' was not run: its arguments hold the key '__proto__' at args.patch.__proto__, and '__proto__', 'constructor' and 'prototype' are refused at any depth. Call it again without that key.",
    });
  });

  it("a resume's responses with a nested forbidden key are refused", async () => {
    const { runner, sessionId } = await setup();
    await expect(
      runner.resume({
        userId: 'u',
        sessionId,
        responses: json('{"A:c1": {"confirmed": true, "payload": {"constructor": {}}}}'),
      }),
    ).rejects.toThrow(`The run's responses holds the key 'constructor' at responses["A:c1"].payload.constructor`);
  });

  it('ordinary nested data passes: keys that only contain the words, and class instances', async () => {
    const { runner, sessionId } = await setup();
    const stateDelta = {
      plain: { constructorName: 'Foo', protoFile: 'a.proto', list: [{ prototypes: 2 }] },
      when: new Date(0),
    };
    const result = await runner.run({ userId: 'u', sessionId, newMessage: 'hi', stateDelta });
    expect(result.status).toBe('completed');
    expect(result.state.plain).toEqual(stateDelta.plain);
  });

  it('the check ends on cycles and does not overflow the stack on deep nesting', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = cyclic;
    expect(findForbiddenKey(cyclic, 'v')).toBeUndefined();
    let deep: unknown = json('{"__proto__": 1}');
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(findForbiddenKey(deep, 'v')).toEqual({ key: '__proto__', path: `v${'[0]'.repeat(100_000)}.__proto__` });
  });
});

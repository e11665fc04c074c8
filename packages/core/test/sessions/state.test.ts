import { describe, expect, it } from 'vitest';
import { InvalidStateKeyError, State, TroupeError } from '@troupe/core';

describe('State', () => {
  it("get reads this step's writes first, then the base state, then the default", () => {
    const state = new State({ topic: 'tides', count: 1, empty: null });
    expect(state.get('topic')).toBe('tides');
    expect(state.get('missing')).toBeUndefined();
    expect(state.get('missing', 'fallback')).toBe('fallback');
    // A stored null or falsy value is a value, not a miss.
    expect(state.get('empty', 'fallback')).toBeNull();
    state.set('count', 0);
    expect(state.get('count', 5)).toBe(0);
    state.set('topic', undefined);
    expect(state.has('topic')).toBe(true);
    expect(state.get('topic', 'fallback')).toBeUndefined();
  });

  it('has is true for keys in the base or written this step, never for inherited properties', () => {
    const state = new State({ a: 1 });
    expect(state.has('a')).toBe(true);
    expect(state.has('b')).toBe(false);
    state.set('b', 2);
    expect(state.has('b')).toBe(true);
    for (const inherited of ['toString', 'hasOwnProperty', 'constructor', '__proto__', 'valueOf']) {
      expect(state.has(inherited), inherited).toBe(false);
      expect(state.get(inherited), inherited).toBeUndefined();
    }
  });

  it('set records the write in the delta without touching the base', () => {
    const base = { a: 1, 'user:name': 'Alice' };
    const state = new State(base);
    expect(state.hasDelta()).toBe(false);
    state.set('a', 2);
    state.set('user:name', 'Bob');
    state.set('temp:scratch', [1]);
    expect(base).toEqual({ a: 1, 'user:name': 'Alice' });
    expect(state.delta).toEqual({ a: 2, 'user:name': 'Bob', 'temp:scratch': [1] });
    expect(state.hasDelta()).toBe(true);
    expect(state.get('a')).toBe(2);
    expect(state.toJSON()).toEqual({ a: 2, 'user:name': 'Bob', 'temp:scratch': [1] });
  });

  it('writes go into the delta object it was given', () => {
    const delta: Record<string, unknown> = { earlier: true };
    const state = new State({}, delta);
    state.set('later', 1);
    expect(delta).toEqual({ earlier: true, later: 1 });
    expect(state.get('earlier')).toBe(true);
  });

  it('update records several writes', () => {
    const state = new State({ keep: 1 });
    state.update({ a: 1, b: 'two', 'app:flag': true });
    expect(state.delta).toEqual({ a: 1, b: 'two', 'app:flag': true });
    expect(state.toJSON()).toEqual({ keep: 1, a: 1, b: 'two', 'app:flag': true });
  });

  it('toJSON is a plain copy: changing it changes neither the state nor the delta', () => {
    const state = new State({ a: 1 });
    state.set('b', 2);
    const json = state.toJSON();
    json.a = 'x';
    json.c = 3;
    expect(state.get('a')).toBe(1);
    expect(state.has('c')).toBe(false);
    expect(state.delta).toEqual({ b: 2 });
    expect(JSON.parse(JSON.stringify(state))).toEqual({ a: 1, b: 2 });
  });

  it.each(['__proto__', 'constructor', 'prototype', 'user:__proto__', 'app:constructor', 'temp:prototype'])(
    "set('%s') throws InvalidStateKeyError naming the key and records nothing",
    (key) => {
      const state = new State({});
      let caught: unknown;
      try {
        state.set(key, { polluted: true });
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(InvalidStateKeyError);
      expect(caught).toBeInstanceOf(TroupeError);
      expect((caught as InvalidStateKeyError).code).toBe('INVALID_STATE_KEY');
      expect((caught as Error).message).toContain(key);
      expect(state.hasDelta()).toBe(false);
      expect(Object.keys(state.delta)).toEqual([]);
      expect(Object.prototype).not.toHaveProperty('polluted');
    },
  );

  it('update with a forbidden key throws instead of dropping it silently', () => {
    const state = new State({});
    const values = JSON.parse('{"__proto__": {"polluted": true}}') as Record<string, unknown>;
    expect(() => state.update(values)).toThrow(InvalidStateKeyError);
    expect(state.hasDelta()).toBe(false);
    expect(({} as { polluted?: unknown }).polluted).toBeUndefined();
  });

  it('an empty key is rejected', () => {
    const state = new State({});
    expect(() => state.set('', 1)).toThrow(InvalidStateKeyError);
  });
});

import { describe, expect, it } from 'vitest';
import { holdUntil } from '../../src/guardrails/hold-until.js';
import { deferred } from '../wait.js';

// The gate the first model response waits behind while input guardrails run.

async function drain<T, R>(gen: AsyncGenerator<T, R, undefined>): Promise<{ items: T[]; value: R }> {
  const items: T[] = [];
  for (;;) {
    const step = await gen.next();
    if (step.done) return { items, value: step.value };
    items.push(step.value);
  }
}

describe('holdUntil', () => {
  it('keeps the order of items held before the gate opened and items that were ready at the same time', async () => {
    const gate = deferred();
    const pulled: number[] = [];
    async function* source(): AsyncGenerator<number, string, undefined> {
      for (let i = 1; i <= 4; i++) {
        pulled.push(i);
        // Opens the gate just as item 3 is produced, so both are ready at once.
        if (i === 3) gate.resolve();
        yield i;
      }
      return 'done';
    }
    expect(await drain(holdUntil(source(), gate.promise))).toEqual({ items: [1, 2, 3, 4], value: 'done' });
    expect(pulled).toEqual([1, 2, 3, 4]);
  });

  it('passes nothing when the gate rejects, even after the source finished', async () => {
    const gate = deferred();
    async function* source(): AsyncGenerator<number, string, undefined> {
      yield 1;
      yield 2;
      setTimeout(() => gate.reject(new Error('tripped')), 1);
      return 'done';
    }
    const seen: number[] = [];
    const gen = holdUntil(source(), gate.promise);
    await expect(
      (async () => {
        for (let step = await gen.next(); !step.done; step = await gen.next()) seen.push(step.value);
      })(),
    ).rejects.toThrow('tripped');
    expect(seen).toEqual([]);
  });

  it('throws the gate error at once while the source is still busy', async () => {
    const gate = deferred();
    let release!: () => void;
    const busy = new Promise<void>((resolve) => (release = resolve));
    async function* source(): AsyncGenerator<number, string, undefined> {
      await busy;
      yield 1;
      return 'late';
    }
    const pending = holdUntil(source(), gate.promise).next();
    gate.reject(new Error('tripped early'));
    await expect(pending).rejects.toThrow('tripped early');
    release();
  });

  it('a source failure waits for the gate: a rejected gate wins, a passed one lets the failure through', async () => {
    async function* failing(): AsyncGenerator<number, string, undefined> {
      yield 1;
      throw new Error('model failed');
    }
    const trips = deferred();
    const tripping = holdUntil(failing(), trips.promise);
    setTimeout(() => trips.reject(new Error('tripped')), 1);
    await expect(drain(tripping)).rejects.toThrow('tripped');

    const passes = deferred();
    const passing = holdUntil(failing(), passes.promise);
    setTimeout(() => passes.resolve(), 1);
    await expect(drain(passing)).rejects.toThrow('model failed');
  });
});

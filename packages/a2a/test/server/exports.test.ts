// The serving part of @troupe/a2a's public surface: changing it is a visible diff.
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { Hono } from 'hono';
import * as a2a from '@troupe/a2a';
import type { A2aApp, A2aAppOptions, A2aAuthOptions } from '@troupe/a2a';

describe('@troupe/a2a, server side', () => {
  it('exports a2aApp and the interrupt part type', () => {
    expect(
      Object.keys(a2a)
        .filter((name) => !name.startsWith('Remote'))
        .sort(),
    ).toEqual(['A2A_INTERRUPT_PART_TYPE', 'a2aApp']);
    expect(a2a.A2A_INTERRUPT_PART_TYPE).toBe('troupe.interrupt');
  });

  it('types its options and its app', () => {
    expectTypeOf<A2aAppOptions['baseUrl']>().toEqualTypeOf<string>();
    expectTypeOf<A2aAppOptions['allowRemoteApprovals']>().toEqualTypeOf<boolean | undefined>();
    expectTypeOf<A2aAppOptions['auth']>().toEqualTypeOf<A2aAuthOptions | undefined>();
    expectTypeOf<A2aApp>().toMatchTypeOf<Hono>();
    expectTypeOf<A2aApp['shutdown']>().toEqualTypeOf<(options?: { gracePeriodMs?: number }) => Promise<void>>();
  });
});

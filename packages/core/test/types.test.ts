import { describe, expectTypeOf, it } from 'vitest';
import { z } from 'zod';
import { FunctionAgent, FunctionTool, type CallbackContext, type ToolContext } from '@troupe/core';

describe('types inferred from zod schemas', () => {
  it('FunctionTool execute args are typed from its parameters', () => {
    new FunctionTool({
      name: 'add',
      description: 'Adds.',
      parameters: z.object({ a: z.number(), b: z.number().optional(), label: z.enum(['x', 'y']) }),
      execute: (args, ctx) => {
        expectTypeOf(args).toEqualTypeOf<{ a: number; b?: number | undefined; label: 'x' | 'y' }>();
        expectTypeOf(ctx).toEqualTypeOf<ToolContext>();
        return args.a + (args.b ?? 0);
      },
    });
  });

  it('a JSON Schema gives a plain record', () => {
    new FunctionTool({
      name: 'json',
      description: 'Uses JSON Schema.',
      parameters: { type: 'object', properties: { q: { type: 'string' } } },
      execute: (args) => {
        expectTypeOf(args).toEqualTypeOf<Record<string, unknown>>();
        return 'ok';
      },
    });
  });

  it('FunctionAgent run input is typed from its inputSchema', () => {
    new FunctionAgent({
      name: 'Typed',
      inputSchema: z.object({ topic: z.string(), count: z.number() }),
      run: (input, ctx) => {
        expectTypeOf(input).toEqualTypeOf<{ topic: string; count: number }>();
        expectTypeOf(ctx).toEqualTypeOf<CallbackContext>();
        return input.topic.repeat(input.count);
      },
    });
  });
});

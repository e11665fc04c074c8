import { Hono } from 'hono';
import { z } from 'zod';
import type { Schema } from '@troupe/core';
import type { ServerContext, ServerEnv } from '../server-context.js';

/**
 * `GET /apps/{app}/input_schema`: the root agent's `inputSchema` as JSON Schema (a zod schema
 * converted), or `null` when it takes messages only. The dev UI builds its input form from it;
 * `POST /run_sse` takes the form's value as `input`.
 */
export function inputSchemaRoutes(ctx: ServerContext): Hono<ServerEnv> {
  const routes = new Hono<ServerEnv>();
  routes.get('/apps/:app/input_schema', async (c) => {
    const runner = await ctx.registry.runner(c.req.param('app'));
    const schema = runner.agent.inputSchema;
    return c.json(schema === undefined ? null : jsonSchemaOf(schema));
  });
  return routes;
}

function jsonSchemaOf(schema: Schema): Record<string, unknown> {
  // A zod schema (of whichever zod copy the agent's module imported) has safeParse; JSON Schema is plain data.
  if (typeof (schema as { safeParse?: unknown }).safeParse !== 'function') return schema as Record<string, unknown>;
  const json = z.toJSONSchema(schema as z.ZodType, { unrepresentable: 'any' }) as Record<string, unknown>;
  delete json.$schema;
  return json;
}

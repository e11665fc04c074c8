import { Hono } from 'hono';
import { HttpError } from '../http-error.js';
import type { ServerContext, ServerEnv } from '../server-context.js';
import { chatCompletions } from './chat-completions.js';
import { appOfModel, modelList, modelOf } from './models.js';
import { openAiErrorResponse } from './openai-error.js';

/**
 * An OpenAI-compatible API over the apps (createApp's `openai`), for clients that speak OpenAI's
 * Chat Completions (the official SDKs, chat front ends, LangChain's ChatOpenAI...): every app is a
 * model. `GET /v1/models` lists them, `GET /v1/models/{model}` describes one, and
 * `POST /v1/chat/completions` runs one turn (see {@link chatCompletions}). Requests carry the
 * server's bearer token as their API key; errors come in OpenAI's shape. Host and origin checks,
 * body limits and the run tracking (cancel, shutdown) are the other routes'.
 */
export function openAiRoutes(ctx: ServerContext): Hono<ServerEnv> {
  const routes = new Hono<ServerEnv>();
  // When the server started: the `created` of every model.
  const created = Math.floor(Date.now() / 1000);

  // Here rather than in createApp's auth middleware, so that a missing or wrong key is answered in OpenAI's shape too.
  routes.use('/v1/*', async (c, next) => {
    c.set('principal', await ctx.auth.principalOf(c.req.header('Authorization')));
    await next();
  });
  routes.get('/v1/models', async (c) => c.json(await modelList(ctx.registry, created)));
  routes.get('/v1/models/:model', async (c) => {
    const model = c.req.param('model');
    await appOfModel(ctx.registry, model);
    return c.json(modelOf(model, created));
  });
  routes.post('/v1/chat/completions', (c) => chatCompletions(ctx, c));
  routes.all('/v1/*', (c) => {
    throw new HttpError(
      404,
      'NOT_FOUND',
      `No route for ${c.req.method} ${c.req.path}: this server's OpenAI-compatible API offers GET /v1/models, GET /v1/models/{model} and POST /v1/chat/completions.`,
    );
  });
  routes.onError((error, c) => openAiErrorResponse(error, c, ctx.onError));
  return routes;
}

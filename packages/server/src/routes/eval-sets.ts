import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { Hono } from 'hono';
import type { BaseLlm } from '@troupe/core';
import { evaluate, loadEvalSet } from '@troupe/eval';
import { HttpError } from '../http-error.js';
import type { ServerContext, ServerEnv } from '../server-context.js';

const EVAL_SET_SUFFIX = '.evalset.json';
/** An eval set id names a file in the app's folder: no path separators, no `..`. */
const EVAL_SET_ID = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,127}$/;

/** Where the eval routes find eval sets and which model agents without one use. */
export interface EvalRouteOptions {
  /** createApp's `agentsDir`: an app's eval sets are the `*.evalset.json` files of its folder there (ADK's layout). */
  agentsDir: string | undefined;
  defaultModel: BaseLlm | string | undefined;
}

/**
 * ADK's eval routes over the app folders of `agentsDir`: `GET /apps/{app}/eval_sets` (the ids of
 * the app's `<id>.evalset.json` files) and `POST /apps/{app}/eval_sets/{id}/run_eval` (runs every
 * case, or those of the body's `evalIds`, against the app's root agent with @troupe/eval, each on a
 * fresh in-memory session, and answers with the report: per case, passed or not and the score of
 * each metric). The body may name `metrics` and `thresholds` as `troupe eval` takes them.
 */
export function evalSetRoutes(ctx: ServerContext, options: EvalRouteOptions): Hono<ServerEnv> {
  const routes = new Hono<ServerEnv>();

  routes.get('/apps/:app/eval_sets', async (c) => {
    const app = c.req.param('app');
    await ctx.registry.runner(app); // 404 for an unknown app.
    return c.json(await evalSetIds(options.agentsDir, app));
  });

  routes.post('/apps/:app/eval_sets/:id/run_eval', async (c) => {
    const app = c.req.param('app');
    const id = c.req.param('id');
    const runner = await ctx.registry.runner(app);
    const ids = await evalSetIds(options.agentsDir, app);
    if (!EVAL_SET_ID.test(id) || !ids.includes(id))
      throw new HttpError(
        404,
        'NOT_FOUND',
        `App '${app}' has no eval set '${id}'. GET /apps/${app}/eval_sets lists them: ${ids.length > 0 ? ids.join(', ') : 'none'} (files named <id>${EVAL_SET_SUFFIX} in the app's folder).`,
      );
    const body = await readRunEvalBody(c.req.raw);
    const evalSet = await loadEvalSet(join(options.agentsDir!, app, `${id}${EVAL_SET_SUFFIX}`));
    const cases = body.evalIds ? evalSet.cases.filter((one) => body.evalIds!.includes(one.id)) : evalSet.cases;
    const report = await evaluate({
      agent: runner.agent,
      evalSet: { ...evalSet, cases },
      ...(body.metrics ? { metrics: body.metrics } : {}),
      ...(body.thresholds ? { thresholds: body.thresholds } : {}),
      runnerOptions: {
        appName: app,
        ...(options.defaultModel === undefined ? {} : { defaultModel: options.defaultModel }),
      },
      abortSignal: c.req.raw.signal,
    });
    return c.json(report);
  });

  return routes;
}

/** The eval set ids of an app's folder, sorted; none when the app has no folder there. */
async function evalSetIds(agentsDir: string | undefined, app: string): Promise<string[]> {
  if (agentsDir === undefined || !EVAL_SET_ID.test(app)) return [];
  let names: string[];
  try {
    names = await readdir(join(agentsDir, app));
  } catch {
    return [];
  }
  return names
    .filter((name) => name.endsWith(EVAL_SET_SUFFIX))
    .map((name) => name.slice(0, -EVAL_SET_SUFFIX.length))
    .filter((id) => EVAL_SET_ID.test(id))
    .sort();
}

interface RunEvalBody {
  evalIds?: string[];
  metrics?: string[];
  thresholds?: Record<string, number>;
}

async function readRunEvalBody(request: Request): Promise<RunEvalBody> {
  const text = await request.text();
  if (text.trim() === '') return {};
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new HttpError(400, 'INVALID_JSON', `The run_eval body is not JSON: send {} or { "evalIds": ["case_1"] }.`);
  }
  const bad = (what: string) =>
    new HttpError(
      400,
      'INVALID_REQUEST',
      `run_eval's ${what}; e.g. { "evalIds": ["case_1"], "metrics": ["response_match"] }.`,
    );
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw bad('body must be an object');
  const { evalIds, metrics, thresholds } = body as Record<string, unknown>;
  const strings = (value: unknown) => Array.isArray(value) && value.every((item) => typeof item === 'string');
  if (evalIds !== undefined && !strings(evalIds)) throw bad('evalIds must be an array of case ids');
  if (metrics !== undefined && !strings(metrics)) throw bad('metrics must be an array of metric names');
  if (
    thresholds !== undefined &&
    (typeof thresholds !== 'object' ||
      thresholds === null ||
      !Object.values(thresholds).every((value) => typeof value === 'number'))
  )
    throw bad('thresholds must map metric names to numbers between 0 and 1');
  return {
    ...(evalIds ? { evalIds } : {}),
    ...(metrics ? { metrics } : {}),
    ...(thresholds ? { thresholds: thresholds as Record<string, number> } : {}),
  };
}

import { Hono, type Context } from 'hono';
import { getFunctionCalls, type Event } from '@troupe/core';
import { ADK_START, adkAppInfo } from '../adk-graph.js';
import { graphLevels, levelDot, type GraphLevel, type Highlight } from '../adk-graph-dot.js';
import { agentGraph } from '../graph.js';
import { HttpError, sessionNotFound } from '../http-error.js';
import { sessionOfPath } from '../run-access.js';
import type { ServerContext, ServerEnv } from '../server-context.js';

/**
 * The graph routes of ADK's dev server, which ADK's web UI reads: `GET /dev/apps/{app}/build_graph`
 * (the structure as JSON), `GET /dev/apps/{app}/build_graph_image?dark_mode=&node=` (Graphviz DOT
 * per graph workflow level, keyed by the names from the root joined by `/`, plus the asked level's
 * as `dotSrc`), and `GET /apps/{app}/users/{user}/sessions/{id}/events/{eventId}/graph` (the root
 * level's DOT with the event's node, and the edge it came along, lit; also under `/dev`, where
 * ADK's web UI looks for it).
 */
export function adkGraphRoutes(ctx: ServerContext): Hono<ServerEnv> {
  const routes = new Hono<ServerEnv>();
  const graphOf = async (app: string) => agentGraph((await ctx.registry.runner(app)).agent);

  routes.get('/dev/apps/:app/build_graph', async (c) => {
    const app = c.req.param('app');
    return c.json(adkAppInfo(app, await graphOf(app)));
  });

  routes.get('/dev/apps/:app/build_graph_image', async (c) => {
    const app = c.req.param('app');
    const dark = c.req.query('dark_mode') === 'true';
    const levels = graphLevels(await graphOf(app));
    const target = levelAt(levels, c.req.query('node') ?? '', app);
    const body: Record<string, unknown> = {};
    for (const level of levels)
      if (level.key === target.key || level.key.startsWith(`${target.key}/`))
        body[level.key] = { dotSrc: levelDot(level, dark) };
    body.dotSrc = levelDot(target, dark);
    return c.json(body);
  });

  const eventGraph = async (c: Context<ServerEnv>) => {
    const key = await sessionOfPath(ctx, c);
    const eventId = c.req.param('eventId')!;
    const session = await ctx.sessionService.getSession(key);
    if (!session) throw sessionNotFound(key);
    const index = session.events.findIndex((e) => e.id === eventId);
    if (index < 0)
      throw new HttpError(
        404,
        'NOT_FOUND',
        `Session '${key.sessionId}' has no event '${eventId}'. GET /apps/${key.appName}/users/${key.userId}/sessions/${key.sessionId} lists its events.`,
      );
    const root = graphLevels(await graphOf(key.appName))[0]!;
    return c.json({ dotSrc: levelDot(root, false, eventHighlight(root, session.events, index)) });
  };
  routes.get('/apps/:app/users/:user/sessions/:session/events/:eventId/graph', eventGraph);
  routes.get('/dev/apps/:app/users/:user/sessions/:session/events/:eventId/graph', eventGraph);

  return routes;
}

/** The level `node` names (names from the root joined by `/`, the root's own name optional); the root for ''. */
function levelAt(levels: readonly GraphLevel[], node: string, app: string): GraphLevel {
  const root = levels[0]!;
  const names = node.split('/').filter((part) => part !== '');
  if (names[0] === root.key) names.shift();
  const key = [root.key, ...names].join('/');
  const level = levels.find((l) => l.key === key);
  if (level) return level;
  throw new HttpError(
    404,
    'NOT_FOUND',
    `App '${app}' has no graph workflow at '${node}'. Graphs: ${levels.map((l) => `'${l.key}'`).join(', ')}.`,
  );
}

/**
 * What an event lights in the root level: its node (a workflow node by its path without run ids;
 * an event deeper down — a parallel worker's item, a `ctx.runNode` child, a nested workflow's node —
 * lights the level's node it belongs to, as ADK's web UI does; START for the user's message, else
 * its author) and the edge from the node before it in the same invocation; an agent's function
 * calls light the tools it called.
 */
function eventHighlight(level: GraphLevel, events: readonly Event[], index: number): Highlight {
  const idOf = (event: Event): string => {
    if (event.author === 'user') return ADK_START;
    const path = event.nodeInfo?.path;
    if (path === undefined || !level.agent.workflow) return event.author;
    if (!path.startsWith(`${level.path}.`)) return path;
    const node = path
      .slice(level.path.length + 1)
      .split('.')[0]!
      .split('@')[0]!;
    return `${level.path}.${node}`;
  };
  const event = events[index]!;
  const id = idOf(event);
  const nodes = new Set([id]);
  const edges = new Set<string>();
  for (let i = index - 1; i >= 0; i--) {
    const before = events[i]!;
    if (before.invocationId !== event.invocationId) break;
    const previous = idOf(before);
    if (previous === id) continue;
    edges.add(`${previous} -> ${id}`);
    break;
  }
  for (const call of getFunctionCalls(event)) {
    nodes.add(call.name);
    edges.add(`${id} -> ${call.name}`);
  }
  return { nodes, edges };
}

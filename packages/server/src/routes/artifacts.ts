import { Hono, type Context } from 'hono';
import type { ArtifactService } from '@troupe/core';
import { HttpError } from '../http-error.js';
import { sessionOfPath, type SessionPath } from '../run-access.js';
import type { ServerContext, ServerEnv } from '../server-context.js';

const BASE = '/apps/:app/users/:user/sessions/:session/artifacts';

/**
 * ADK's artifact routes of a session: list the names (its own and the user's `user:` ones), read
 * the latest or a given version (a `Part`), list versions, delete every version. A token reaches
 * only its own user's artifacts (403 otherwise), `user:` ones included. Names are one URL-encoded
 * path segment (`a%2Fb.txt` is `a/b.txt`).
 */
export function artifactRoutes(ctx: ServerContext, service: ArtifactService): Hono<ServerEnv> {
  const routes = new Hono<ServerEnv>();

  const keyOf = async (c: Context<ServerEnv>): Promise<SessionPath & { filename: string }> => ({
    ...(await sessionOfPath(ctx, c)),
    filename: c.req.param('name') ?? '',
  });

  routes.get(BASE, async (c) => c.json(await service.listArtifactKeys(await sessionOfPath(ctx, c))));

  routes.get(`${BASE}/:name`, async (c) => {
    const key = await keyOf(c);
    const raw = c.req.query('version');
    const version = raw === undefined || raw === '' ? undefined : parseVersion(raw, 'version');
    return c.json(await load(service, key, version));
  });

  routes.get(`${BASE}/:name/versions`, async (c) => c.json(await service.listVersions(await keyOf(c))));

  routes.get(`${BASE}/:name/versions/:version`, async (c) => {
    const key = await keyOf(c);
    return c.json(await load(service, key, parseVersion(c.req.param('version'), 'path')));
  });

  routes.delete(`${BASE}/:name`, async (c) => {
    await service.deleteArtifact(await keyOf(c));
    return c.body(null, 204);
  });

  return routes;
}

async function load(service: ArtifactService, key: SessionPath & { filename: string }, version: number | undefined) {
  const part = await service.loadArtifact({ ...key, ...(version === undefined ? {} : { version }) });
  if (part) return part;
  const which = version === undefined ? '' : ` version ${version}`;
  throw new HttpError(
    404,
    'ARTIFACT_NOT_FOUND',
    `Artifact '${key.filename}'${which} not found in session '${key.sessionId}' (app '${key.appName}', user '${key.userId}'). GET /apps/${key.appName}/users/${key.userId}/sessions/${key.sessionId}/artifacts lists its artifacts${version === undefined ? '' : ", and .../versions a file's versions"}.`,
  );
}

function parseVersion(raw: string, where: string): number {
  if (!/^(0|[1-9][0-9]{0,14})$/.test(raw)) {
    throw new HttpError(
      400,
      'INVALID_REQUEST',
      `The artifact version ${JSON.stringify(raw)} is not a whole number ≥ 0. Send e.g. ?version=0, or omit it for the latest.`,
      where === 'version' ? 'version' : undefined,
    );
  }
  return Number(raw);
}

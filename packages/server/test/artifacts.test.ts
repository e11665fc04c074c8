import { describe, expect, it } from 'vitest';
import { FunctionTool, InMemoryArtifactService, InMemorySessionService, LlmAgent, type Part } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { z } from 'zod';
import { createApp, type WireEvent } from '../src/index.js';
import { call, createSession, expectError, message } from './helpers.js';

const PNG: Part = {
  inlineData: {
    mimeType: 'image/png',
    data: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).toString('base64'),
  },
};
const tokens = { 'alice-token': 'alice', 'bob-token': 'bob', 'admin-token': '*' };
const as = (token: string) => ({ Authorization: `Bearer ${token}` });

/** An app whose agent saves a PNG through its `draw` tool. */
function drawingApp(options: { auth?: boolean } = {}) {
  const draw = new FunctionTool({
    name: 'draw',
    description: 'Draws.',
    parameters: z.object({ name: z.string() }),
    execute: async ({ name }, ctx) => ({ version: await ctx.saveArtifact(name, PNG) }),
  });
  const model = new ScriptedModel([{ functionCalls: [{ name: 'draw', args: { name: 'chart.png' } }] }, 'Drawn.']);
  const artifactService = new InMemoryArtifactService();
  const sessionService = new InMemorySessionService();
  const app = createApp({
    apps: { studio: new LlmAgent({ name: 'artist', model, tools: [draw] }) },
    sessionService,
    artifactService,
    ...(options.auth ? { auth: { tokens } } : {}),
  });
  return { app, artifactService, sessionService };
}

describe('artifact routes (ADK)', () => {
  it('a tool saves an artifact during /run; the event carries artifactDelta and the routes list, read and version it', async () => {
    const { app, artifactService } = drawingApp();
    await createSession(app, 'studio', 'alice', { sessionId: 's1' });
    const res = await call(app, 'POST', '/run', {
      appName: 'studio',
      userId: 'alice',
      sessionId: 's1',
      newMessage: message('draw'),
    });
    expect(res.status).toBe(200);
    const events = (await res.json()) as WireEvent[];
    expect(events.map((e) => e.actions.artifactDelta).filter((d) => Object.keys(d ?? {}).length > 0)).toEqual([
      { 'chart.png': 0 },
    ]);

    await artifactService.saveArtifact({
      appName: 'studio',
      userId: 'alice',
      sessionId: 's1',
      filename: 'chart.png',
      artifact: { text: 'v1' },
    });
    await artifactService.saveArtifact({
      appName: 'studio',
      userId: 'alice',
      sessionId: 'other',
      filename: 'user:avatar.png',
      artifact: PNG,
    });

    const base = '/apps/studio/users/alice/sessions/s1/artifacts';
    expect(await (await call(app, 'GET', base)).json()).toEqual(['chart.png', 'user:avatar.png']);
    expect(await (await call(app, 'GET', `${base}/chart.png`)).json()).toEqual({ text: 'v1' });
    expect(await (await call(app, 'GET', `${base}/chart.png?version=0`)).json()).toEqual(PNG);
    expect(await (await call(app, 'GET', `${base}/chart.png/versions/0`)).json()).toEqual(PNG);
    expect(await (await call(app, 'GET', `${base}/chart.png/versions`)).json()).toEqual([0, 1]);
    expect(await (await call(app, 'GET', `${base}/user%3Aavatar.png`)).json()).toEqual(PNG);
    expect(await (await call(app, 'GET', `${base}/nothing.txt/versions`)).json()).toEqual([]);

    const missing = await expectError(await call(app, 'GET', `${base}/nothing.txt`), 404, 'ARTIFACT_NOT_FOUND');
    expect(missing).toMatch(/Artifact 'nothing.txt' not found in session 's1'/);
    await expectError(await call(app, 'GET', `${base}/chart.png?version=7`), 404, 'ARTIFACT_NOT_FOUND');
    await expectError(await call(app, 'GET', `${base}/chart.png/versions/7`), 404, 'ARTIFACT_NOT_FOUND');
    await expectError(await call(app, 'GET', `${base}/chart.png?version=-1`), 400, 'INVALID_REQUEST');
    await expectError(await call(app, 'GET', `${base}/chart.png/versions/latest`), 400, 'INVALID_REQUEST');

    const deleted = await call(app, 'DELETE', `${base}/chart.png`);
    expect(deleted.status).toBe(204);
    expect(await (await call(app, 'GET', base)).json()).toEqual(['user:avatar.png']);
    await expectError(await call(app, 'GET', `${base}/chart.png`), 404, 'ARTIFACT_NOT_FOUND');
    await expectError(await call(app, 'GET', '/apps/nope/users/alice/sessions/s1/artifacts'), 404, 'APP_NOT_FOUND');
  });

  it('takes URL-encoded names with slashes, spaces and unicode as one name', async () => {
    const { app, artifactService } = drawingApp();
    const scope = { appName: 'studio', userId: 'alice', sessionId: 's1' };
    for (const filename of ['reports/2026/q1 summary.txt', 'with space.txt', 'ünï 日本.md', '../escape.txt']) {
      await artifactService.saveArtifact({ ...scope, filename, artifact: { text: filename } });
    }
    const base = '/apps/studio/users/alice/sessions/s1/artifacts';
    expect(await (await call(app, 'GET', base)).json()).toEqual([
      '../escape.txt',
      'reports/2026/q1 summary.txt',
      'with space.txt',
      'ünï 日本.md',
    ]);
    for (const filename of ['reports/2026/q1 summary.txt', 'with space.txt', 'ünï 日本.md', '../escape.txt']) {
      const res = await call(app, 'GET', `${base}/${encodeURIComponent(filename)}`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ text: filename });
      expect(await (await call(app, 'GET', `${base}/${encodeURIComponent(filename)}/versions`)).json()).toEqual([0]);
    }
    expect((await call(app, 'DELETE', `${base}/${encodeURIComponent('reports/2026/q1 summary.txt')}`)).status).toBe(
      204,
    );
    expect(await artifactService.listVersions({ ...scope, filename: 'reports/2026/q1 summary.txt' })).toEqual([]);
    expect(await artifactService.listVersions({ ...scope, filename: 'with space.txt' })).toEqual([0]);
  });

  it("keeps users apart over HTTP: bob's token gets 403 for every route of alice's artifacts, user: ones included", async () => {
    const { app, artifactService } = drawingApp({ auth: true });
    const scope = { appName: 'studio', userId: 'alice', sessionId: 's1' };
    await artifactService.saveArtifact({ ...scope, filename: 'secret.txt', artifact: { text: 'alice only' } });
    await artifactService.saveArtifact({ ...scope, filename: 'user:diary.txt', artifact: { text: 'alice diary' } });
    const alice = '/apps/studio/users/alice/sessions/s1/artifacts';
    for (const [method, path] of [
      ['GET', alice],
      ['GET', `${alice}/secret.txt`],
      ['GET', `${alice}/user%3Adiary.txt`],
      ['GET', `${alice}/user%3Adiary.txt/versions`],
      ['GET', `${alice}/user%3Adiary.txt/versions/0`],
      ['DELETE', `${alice}/user%3Adiary.txt`],
      ['DELETE', `${alice}/secret.txt`],
    ] as const) {
      await expectError(await call(app, method, path, undefined, as('bob-token')), 403, 'FORBIDDEN');
    }
    await expectError(await call(app, 'GET', alice), 401, 'UNAUTHORIZED');
    // Through his own path with alice's session id, bob sees only his own (none): user: files are per user.
    const bobsView = '/apps/studio/users/bob/sessions/s1/artifacts';
    expect(await (await call(app, 'GET', bobsView, undefined, as('bob-token'))).json()).toEqual([]);
    await expectError(
      await call(app, 'GET', `${bobsView}/user%3Adiary.txt`, undefined, as('bob-token')),
      404,
      'ARTIFACT_NOT_FOUND',
    );
    await expectError(
      await call(app, 'GET', `${bobsView}/secret.txt`, undefined, as('bob-token')),
      404,
      'ARTIFACT_NOT_FOUND',
    );
    // Nothing of alice's was deleted; her token and an admin token read them.
    expect(await (await call(app, 'GET', alice, undefined, as('alice-token'))).json()).toEqual([
      'secret.txt',
      'user:diary.txt',
    ]);
    expect(await (await call(app, 'GET', `${alice}/user%3Adiary.txt`, undefined, as('admin-token'))).json()).toEqual({
      text: 'alice diary',
    });
  });

  it('createApp refuses an artifactService that is not one', () => {
    expect(() => createApp({ apps: {}, artifactService: {} as never })).toThrow(
      /createApp's artifactService must be an ArtifactService \(an object with saveArtifact, loadArtifact/,
    );
  });
});

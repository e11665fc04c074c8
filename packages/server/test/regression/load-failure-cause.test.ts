import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { createApp, serve, type ServerHandle } from '../../src/index.js';

// An app that failed to load showed the dev UI a banner without its cause: the 500 said only "The
// app could not be loaded ... the server's log names the file and the reason". On a server bound to
// loopback (troupe web, troupe api by default) the client is on the developer's own machine: the
// answer now names the file, the line and the reason. Bound elsewhere (behind auth), it still does not.

const agentsDir = fileURLToPath(new URL('../fixtures/agents', import.meta.url));
const handles: ServerHandle[] = [];
afterEach(async () => {
  await Promise.all(handles.splice(0).map((h) => h.close({ gracePeriodMs: 100 })));
});

async function loadFailure(url: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await fetch(`${url}/apps/broken/graph`, { headers });
  expect(res.status).toBe(500);
  const body = (await res.json()) as { error: { code: string; message: string } };
  expect(body.error.code).toBe('AGENT_LOAD');
  return body.error.message;
}

describe('an app that fails to load', () => {
  it('is answered with its file, line and reason by a server bound to loopback', async () => {
    const handle = await serve(createApp({ agentsDir, onError: () => {} }), { port: 0 });
    handles.push(handle);
    const message = await loadFailure(handle.url);
    expect(message).toMatch(/The agent in '.*broken[/\\]agent\.mjs' could not be loaded/);
    expect(message).toContain('at agent.mjs:1:7');
    expect(message).toContain('broken on purpose');
    // A YAML definition's message names its line (core's AgentDefinitionError).
    const yaml = (await (await fetch(`${handle.url}/apps/bad_yaml/graph`)).json()) as { error: { message: string } };
    expect(yaml.error.message).toMatch(/bad_yaml[/\\]agent\.yml.*not-a-type/s);
  });

  it('keeps the cause for the server log when the server is bound to another address', async () => {
    const app = createApp({ agentsDir, auth: { tokens: { secret: '*' } }, onError: () => {} });
    const handle = await serve(app, { host: '0.0.0.0', port: 0 });
    handles.push(handle);
    const message = await loadFailure(`http://127.0.0.1:${handle.port}`, { Authorization: 'Bearer secret' });
    expect(message).toMatch(/^The app could not be loaded.*Request id: /);
    expect(message).not.toContain(agentsDir);
  });
});

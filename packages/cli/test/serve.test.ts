import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { ExitCode, runCli } from '../src/index.js';
import { fakeIo, startServing } from './helpers.js';

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'troupe-serve-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Runs a command that fails before serving. */
async function troupe(...argv: string[]): Promise<{ code: number; out: string; err: string }> {
  const io = fakeIo(fixtures);
  const code = await runCli(argv, io);
  return { code, out: io.out(), err: io.err() };
}

/** The status of GET /list-apps sent with this Host header (fetch cannot set Host). */
function statusFor(url: string, host: string): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: hostname, port: Number(port), path: '/list-apps', headers: { Host: host } },
      (res) => {
        res.resume();
        resolve(res.statusCode!);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** Starts `troupe <argv>` in process and resolves once it printed its URL. */
const start = (...argv: string[]) => startServing(fixtures, ...argv);

describe('troupe api / troupe web: arguments', () => {
  it('prints the usage of each command', async () => {
    for (const command of ['api', 'web']) {
      const help = await troupe(command, '--help');
      expect(help.code).toBe(ExitCode.ok);
      expect(help.out).toContain(`Usage: troupe ${command} <agents dir | agent file>`);
      for (const flag of [
        '--host',
        '--port',
        '--token',
        '--model',
        '--db',
        '--pg',
        '--memory',
        '--allow-origin',
        '--allowed-host',
        '--a2a',
        '--openai',
      ])
        expect(help.out).toContain(flag);
    }
    expect((await troupe('help', 'web')).out).toContain('browser dev UI');
  });

  it.each([
    [
      ['api'],
      "'troupe api' takes one agents directory (each app a folder with agent.ts, agent.js or agent.yaml) or one agent file; got none. Example: 'troupe api examples'.",
    ],
    [
      ['web', 'a', 'b'],
      "'troupe web' takes one agents directory (each app a folder with agent.ts, agent.js or agent.yaml) or one agent file; got 'a', 'b'. Example: 'troupe web examples'.",
    ],
    [
      ['api', 'serve-apps', '--port', '80x'],
      '--port "80x" is not a port; use a whole number from 0 to 65535 (0 picks a free port).',
    ],
    [
      ['api', 'serve-apps', '--port', '70000'],
      '--port "70000" is not a port; use a whole number from 0 to 65535 (0 picks a free port).',
    ],
    [
      ['api', 'serve-apps', '--db', 'x.db', '--pg', 'postgres://localhost/x'],
      '--db and --pg both choose where sessions live; give only one.',
    ],
    [
      ['web', 'serve-apps', '--verbose'],
      "Unknown option '--verbose' for 'troupe web' (it takes --host, --port, --token, --model, --db, --pg, --memory, --redis, --warn-untaken-after, --allow-origin, --allowed-host, --a2a, --openai, --mcp, --compact-every, --compact-overlap, --help). Run 'troupe web --help' for the options.",
    ],
    [
      ['api', 'serve-apps', '--allow-origin', 'localhost:5173'],
      `--allow-origin "localhost:5173" is refused, whose scheme 'localhost:' is neither http: nor https:. Give scheme, host and port, e.g. --allow-origin http://localhost:5173.`,
    ],
    [
      ['web', 'serve-apps', '--allow-origin', 'http://localhost:5173/app'],
      '--allow-origin "http://localhost:5173/app" is refused, which has more than an origin (a path, query, fragment or user name). Give scheme, host and port, e.g. --allow-origin http://localhost:5173.',
    ],
    [
      ['api', 'serve-apps', '--allowed-host', '*'],
      `--allowed-host "*" is refused, but any host ('*') would let any web page on a rebound name drive the server. Give a host name as browsers send it, e.g. --allowed-host dev.example.com (any port), dev.example.com:8443 or .example.com.`,
    ],
    [
      ['api', 'no-such-dir'],
      `'no-such-dir' is not a directory or an agent file (looked for ${join(fixtures, 'no-such-dir')}). Pass the folder that holds your apps, e.g. 'troupe api examples', or one agent file.`,
    ],
  ])('troupe %j exits with 2: %s', async (argv, message) => {
    const result = await troupe(...argv);
    expect(result.err).toBe(`troupe: ${message}\n`);
    expect(result.code).toBe(ExitCode.usage);
  });

  it('refuses to bind a non-loopback host without a token', async () => {
    const result = await troupe('api', 'serve-apps', '--host', '0.0.0.0');
    expect(result.code).toBe(ExitCode.usage);
    expect(result.err).toContain('--host 0.0.0.0 is reachable from other machines');
    expect(result.err).toContain('Add --token <secret>');
  });
});

describe('troupe api / troupe web: serving', () => {
  it('serves module and YAML apps with sessions in SQLite, reports a broken definition when used, and stops on Ctrl-C', async () => {
    const db = join(scratch, 'api.db');
    const { io, url, exit } = await start('api', 'serve-apps', '--port', '0', '--db', db);
    expect(io.out()).toContain('Apps in serve-apps: broken, echo, greeter\n');
    expect(io.out()).toContain(`Sessions: SQLite ${db}\n`);
    expect(io.err()).toContain('offline demo model, which is not an LLM');
    expect(existsSync(db)).toBe(true);

    const created = (await (await fetch(`${url}/apps/echo/users/u1/sessions`, { method: 'POST' })).json()) as {
      id: string;
    };
    const run = await fetch(`${url}/run`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        appName: 'echo',
        userId: 'u1',
        sessionId: created.id,
        newMessage: { role: 'user', parts: [{ text: 'hello' }] },
      }),
    });
    const events = (await run.json()) as { author: string; content?: { parts: { text?: string }[] } }[];
    expect(events.at(-1)).toMatchObject({ author: 'Echo', content: { parts: [{ text: 'HELLO' }] } });
    const graph = (await (await fetch(`${url}/apps/greeter/graph`)).json()) as { name: string };
    expect(graph.name).toBe('Greeter');
    // The client learns that the app failed to load and the request id; the terminal has the reason.
    const broken = await fetch(`${url}/apps/broken/graph`);
    expect(broken.status).toBe(500);
    const requestId = broken.headers.get('X-Request-Id')!;
    expect(((await broken.json()) as { error: { message: string } }).error.message).toContain(
      `Request id: ${requestId}.`,
    );
    expect(io.err()).toContain(`troupe: GET /apps/broken/graph (request ${requestId}) failed:`);
    expect(io.err()).toContain("'max_iterations' must be a whole number of at least 1");
    expect((await fetch(`${url}/`)).status).toBe(404);

    io.interrupt();
    expect(await exit).toBe(ExitCode.ok);
    await expect(fetch(`${url}/list-apps`)).rejects.toThrow();
  });

  it('web serves the dev UI at / and, with --token, the API only to requests that carry it', async () => {
    const { io, url, exit } = await start('web', 'serve-apps', '--port', '0', '--memory', '--token', 's3cret');
    expect(io.out()).toContain(`Troupe dev UI: ${url}/#token=s3cret\n`);
    const page = await fetch(`${url}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('<title>Troupe dev UI</title>');
    expect((await fetch(`${url}/app.js`)).headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect((await fetch(`${url}/list-apps`)).status).toBe(401);
    const apps = await fetch(`${url}/list-apps`, { headers: { Authorization: 'Bearer s3cret' } });
    expect(await apps.json()).toEqual(['broken', 'echo', 'greeter']);
    io.interrupt();
    expect(await exit).toBe(ExitCode.ok);
  });

  it('--allow-origin lets a dev server page call the API (CORS preflight 204, other origins 403); only the loopback names and --allowed-host are answered', async () => {
    const vite = 'http://localhost:5173';
    const { io, url, exit } = await start(
      'api',
      'serve-apps',
      '--port',
      '0',
      '--memory',
      '--allow-origin',
      vite,
      '--allow-origin',
      'https://ui.example',
      '--allowed-host',
      'dev.example.com',
    );
    expect(io.out()).toContain(`Pages allowed to call the API (CORS): ${vite}, https://ui.example\n`);
    expect(io.out()).toContain('Host names answered besides the loopback ones: dev.example.com\n');
    const preflight = (origin: string) =>
      fetch(`${url}/run`, {
        method: 'OPTIONS',
        headers: {
          Origin: origin,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'content-type',
        },
      });
    const allowed = await preflight(vite);
    expect([
      allowed.status,
      allowed.headers.get('access-control-allow-origin'),
      allowed.headers.get('access-control-allow-headers'),
    ]).toEqual([204, vite, 'Authorization, Content-Type']);
    expect((await preflight('http://localhost:3000')).status).toBe(403);
    const created = await fetch(`${url}/apps/echo/users/u/sessions`, { method: 'POST', headers: { Origin: vite } });
    expect([created.status, created.headers.get('access-control-allow-origin')]).toEqual([200, vite]);
    expect(
      (
        await fetch(`${url}/apps/echo/users/u/sessions`, {
          method: 'POST',
          headers: { Origin: 'http://localhost:3000' },
        })
      ).status,
    ).toBe(403);

    const port = new URL(url).port;
    expect(await statusFor(url, `attacker.example:${port}`)).toBe(403);
    expect(await statusFor(url, `dev.example.com:${port}`)).toBe(200);
    expect(await statusFor(url, `localhost:${port}`)).toBe(200);
    io.interrupt();
    expect(await exit).toBe(ExitCode.ok);
  });

  it('serves one agent file named on the command line as the only app, named after the file', async () => {
    const { io, url, exit } = await start('api', 'hello.ts', '--port', '0', '--memory');
    expect(io.out()).toContain('App hello from hello.ts\n');
    expect(await (await fetch(`${url}/list-apps`)).json()).toEqual(['hello']);
    const graph = (await (await fetch(`${url}/apps/hello/graph`)).json()) as { name: string };
    expect(graph.name).toBe('Greeter');
    io.interrupt();
    expect(await exit).toBe(ExitCode.ok);
  });
});

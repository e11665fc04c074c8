import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ExitCode, runCli } from '../src/index.js';
import { fakeIo, startServing, troupe } from './helpers.js';

// `troupe mcp` (stdio; its real process is tested in packages/mcp/test/server/stdio.test.ts) and
// `troupe api --mcp` (Streamable HTTP at /mcp).

const fixtures = fileURLToPath(new URL('./fixtures/', import.meta.url));

describe('troupe mcp', () => {
  it.each([
    [
      [],
      "troupe: 'troupe mcp' takes one agents directory (each app a folder with agent.ts, agent.js or agent.yaml) or one agent file; got none. Example: 'troupe mcp examples --app weather'.\n",
    ],
    [
      ['serve-apps', '--db', 'x.db', '--memory'],
      'troupe: --db and --memory both choose where sessions live; give only one.\n',
    ],
    [
      ['serve-apps', '--port', '80'],
      "troupe: Unknown option '--port' for 'troupe mcp' (it takes --app, --model, --db, --pg, --memory, --help). Run 'troupe mcp --help' for the options.\n",
    ],
    [
      ['nowhere'],
      `troupe: 'nowhere' is not a directory or an agent file (looked for ${fixtures}nowhere). Pass the folder that holds your apps, e.g. 'troupe mcp examples', or one agent file.\n`,
    ],
  ])('troupe mcp %j is a usage error naming the fix', async (argv, message) => {
    const { code, out, err } = await troupe(fixtures, 'mcp', ...argv);
    expect({ code, out, err }).toEqual({ code: ExitCode.usage, out: '', err: message });
  });

  it('--app naming no app of the directory lists the ones there are', async () => {
    const { code, err } = await troupe(fixtures, 'mcp', 'serve-apps', '--memory', '--app', 'nope');
    expect(code).toBe(ExitCode.usage);
    expect(err).toBe(
      `troupe: --app nope: there is no app 'nope' in ${fixtures}serve-apps; its apps are broken, echo, greeter.\n`,
    );
  });

  it('--help prints the usage with a host configuration', async () => {
    const { code, out } = await troupe(fixtures, 'mcp', '--help');
    expect(code).toBe(ExitCode.ok);
    expect(out).toMatch(/^Usage: troupe mcp <agents dir \| agent file> \[options\]/);
    expect(out).toContain('{ "mcpServers": { "troupe": { "command": "node", "args": [');
  });

  it('serves until its stdin ends, writing nothing but JSON-RPC to stdout', async () => {
    const io = fakeIo(fixtures);
    const exit = runCli(['mcp', 'serve-apps', '--memory', '--app', 'echo'], io);
    const send = (message: object) => io.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'echo', arguments: { message: 'hello' } } });
    for (let waited = 0; !io.out().includes('"id":2') && waited < 10_000; waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20));
    io.stdin.end();
    expect(await exit).toBe(ExitCode.ok);
    const messages = io
      .out()
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: number; result: { content?: unknown } });
    expect(messages.map((m) => m.id)).toEqual([1, 2]);
    expect(messages[1]!.result.content).toEqual([{ type: 'text', text: 'HELLO' }]);
    expect(io.err()).toMatch(/^troupe mcp: serving echo from serve-apps over stdio; sessions: memory/);
    expect(io.err()).toContain('troupe mcp: stopped\n');
  });
});

describe('troupe api --mcp', () => {
  it('serves the apps as MCP tools at /mcp, behind the --token', async () => {
    const { io, url, exit } = await startServing(
      fixtures,
      'api',
      'serve-apps',
      '--port',
      '0',
      '--memory',
      '--mcp',
      '--token',
      't0k',
    );
    expect(io.out()).toContain(`MCP: ${url}/mcp (Streamable HTTP, each app a tool)\n`);

    const refused = await fetch(`${url}/mcp`, { method: 'POST', body: '{}' });
    expect(refused.status).toBe(401);

    const client = new Client({ name: 'troupe-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
        requestInit: { headers: { Authorization: 'Bearer t0k' } },
      }),
    );
    onTestFinished(() => client.close());
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['broken', 'echo', 'greeter', 'resume']);
    expect(tools[0]!.description).toMatch(/^This app failed to load and cannot run: /);
    const result = await client.callTool({ name: 'echo', arguments: { message: 'hello' } });
    expect(result.content).toEqual([{ type: 'text', text: 'HELLO' }]);

    await client.close();
    io.interrupt();
    expect(await exit).toBe(ExitCode.ok);
  });
});

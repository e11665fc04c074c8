import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ExitCode } from '../../src/index.js';
import { startServing, tempDir } from '../helpers.js';

// An app that failed to load printed its whole stack trace on the server console for every request
// the dev UI made (the graph, the sessions, the input form...). Now each failure is one line, with
// the file, the line and the reason, and the same failure again prints nothing more.

it('logs one line per load failure, with the file, line and reason, not a stack trace per request', async () => {
  const dir = tempDir('troupe-load-failure-');
  mkdirSync(join(dir, 'broken'));
  writeFileSync(join(dir, 'broken', 'agent.mjs'), "const settings = {};\nsettings.model.name = 'x';\n");
  const { io, url, exit } = await startServing(dir, 'web', '.', '--port', '0', '--memory');
  for (const path of ['/apps/broken/graph', '/apps/broken/input_schema', '/apps/broken/graph'])
    expect((await fetch(`${url}${path}`)).status).toBe(500);
  io.interrupt();
  expect(await exit).toBe(ExitCode.ok);

  const failures = io
    .err()
    .split('\n')
    .filter((line) => line.includes('could not be loaded'));
  expect(failures).toHaveLength(1);
  expect(failures[0]).toMatch(
    /^troupe: GET \/apps\/broken\/graph \(request [\w-]+\) failed: The agent in '.*broken[/\\]agent\.mjs' could not be loaded: importing it failed at agent\.mjs:2:\d+: .*'name'.* \(the next request loads it again\)$/,
  );
  expect(io.err()).not.toContain('    at ');
});

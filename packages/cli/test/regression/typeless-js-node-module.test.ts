import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { spawnTroupe } from '../cli-process.js';
import { tempDir } from '../helpers.js';

// `troupe run` on a YAML workflow whose nodes are a `.js` module written with import/export, in a
// folder with no package.json (as one starts a project). Node alone detects such a module as ESM;
// with the tsx hooks the CLI registers for TypeScript modules, Node 20 loads it as CommonJS and
// fails ("Cannot require() ES Module … in a cycle"; Node 22 and later load it). The error said only
// that; it now says what to do, and with the package.json it asks for the workflow runs.

describe('troupe run on a YAML workflow with a .js module in a folder without "type": "module"', () => {
  it('loads it, or (on Node 20) fails saying to add { "type": "module" }; with that package.json it runs', async () => {
    const dir = tempDir('troupe-typeless-');
    writeFileSync(join(dir, 'nodes.js'), 'export function echo(ctx, text) { return `echo ${text}`; }\n');
    writeFileSync(
      join(dir, 'workflow.yaml'),
      'type: workflow\nname: wf\nnodes:\n  echo: ./nodes.js#echo\nedges:\n  - [START, echo]\n',
    );
    const typeless = spawnTroupe(['run', 'workflow.yaml', '--memory', '--input', 'hi'], dir);
    const code = await typeless.exited;
    if (code === 0) expect(typeless.out()).toContain('[echo] echo hi');
    else {
      expect(code).toBe(1);
      expect(typeless.err()).toContain('nodes.js');
      expect(typeless.err()).toContain('add one ({ "type": "module" }), or name the file .mjs');
    }
    writeFileSync(join(dir, 'package.json'), '{ "type": "module" }\n');
    const typed = spawnTroupe(['run', 'workflow.yaml', '--memory', '--input', 'hi'], dir);
    expect(await typed.exited).toBe(0);
    expect(typed.out()).toContain('[echo] echo hi');
  });
});

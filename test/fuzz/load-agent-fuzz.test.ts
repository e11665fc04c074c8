import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { AgentDefinitionError, BaseAgent, loadAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';

// Property-based: generated YAML and JSON agent files either load as an agent or fail with an
// AgentDefinitionError (naming file and line) — never another error, never a hang.

const dir = mkdtempSync(join(tmpdir(), 'troupe-fuzz-yaml-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

const keys = fc.constantFrom(
  'name',
  'type',
  'model',
  'instruction',
  'description',
  'sub_agents',
  'subAgents',
  'skills',
  'tools',
  'output_key',
  'max_iterations',
  'iterate_on',
  'mode',
  'reflection',
  'input_schema',
  '__proto__',
  'constructor',
  'agents',
  'router',
);
const scalar = fc.oneof(
  fc.constantFrom(
    'llm',
    'sequential',
    'parallel',
    'loop',
    'team',
    'routed',
    'function',
    'Agent_1',
    './missing.yaml',
    '{x}',
    'null',
    '~',
    '&a',
    '*a',
    '!!js/function',
  ),
  fc.string({ maxLength: 12 }),
  fc.integer(),
  fc.boolean(),
);
const node: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  n: fc.oneof(
    { depthSize: 'small' },
    scalar,
    fc.array(tie('n'), { maxLength: 3 }),
    fc.dictionary(keys, tie('n'), { maxKeys: 5 }),
  ),
})).n;

/** Raw text, including YAML features that are easy to abuse (anchors, aliases, tags, merges). */
const yamlText = fc.oneof(
  node.map((v) => JSON.stringify(v) ?? 'null'),
  fc
    .array(fc.tuple(keys, scalar), { maxLength: 6 })
    .map((pairs) => pairs.map(([k, v]) => `${k}: ${String(v)}`).join('\n')),
  fc.string({ unit: 'binary', maxLength: 120 }),
  fc.integer({ min: 2, max: 9 }).map((width) => {
    // A billion-laughs document: each level refers to the previous one `width` times.
    const lines = ['a0: &a0 [lol]'];
    for (let i = 1; i < 10; i++)
      lines.push(`a${i}: &a${i} [${Array.from({ length: width }, () => `*a${i - 1}`).join(', ')}]`);
    return `${lines.join('\n')}\nname: Bomb\ninstruction: *a9\n`;
  }),
  fc.constantFrom(
    'name: A\n<<: *missing',
    'name: A\ninstruction: !!binary aGk=',
    'name: A\nsub_agents:\n  - name: A',
    '- a\n- b',
    '%YAML 1.1\n---\nname: A',
  ),
);

describe('fuzzing loadAgent', () => {
  it('loads an agent or fails with AgentDefinitionError, quickly, for any YAML or JSON file', async () => {
    const model = new ScriptedModel([]);
    await fc.assert(
      fc.asyncProperty(yamlText, fc.constantFrom('yaml', 'json'), async (text, ext) => {
        const file = join(dir, `agent-${n++}.${ext}`);
        writeFileSync(file, text);
        const started = Date.now();
        try {
          const agent = await loadAgent(file, { model });
          expect(agent).toBeInstanceOf(BaseAgent);
        } catch (error) {
          expect(error, String(error)).toBeInstanceOf(AgentDefinitionError);
        }
        expect(Date.now() - started, 'loading one small file must not take seconds').toBeLessThan(2_000);
      }),
      { numRuns: 600 },
    );
  }, 60_000);

  it('refuses a wide alias bomb (one anchor aliased side by side past 10000 values) with AgentDefinitionError', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 10_001, max: 30_000 }), fc.boolean(), async (width, flow) => {
        const file = join(dir, `wide-${n++}.yaml`);
        const aliases = Array.from({ length: width }, () => '*a');
        const list = flow ? ` [${aliases.join(', ')}]` : `\n${aliases.map((a) => `  - ${a}`).join('\n')}`;
        writeFileSync(file, `name: Wide\ninstruction: &a lol\ndescription:${list}\n`);
        const error: unknown = await loadAgent(file).catch((e: unknown) => e);
        expect(error).toBeInstanceOf(AgentDefinitionError);
        expect((error as Error).message).toContain('brings the document over 10000 values copied from anchors');
      }),
      { numRuns: 8 },
    );
  }, 60_000);
});

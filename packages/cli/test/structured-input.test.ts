import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ExitCode, runCli } from '../src/index.js';
import { fakeIo, troupe } from './helpers.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const sections = JSON.stringify({ sections: [{ title: 'intro', description: 'why' }, { title: 'next steps' }] });

describe('troupe run: structured input (examples/team-yaml, a TeamAgent with an inputSchema)', () => {
  it('runs the folder by its name with --input-json and prints the object output as pretty JSON', async () => {
    const result = await troupe(repo, 'run', 'examples/team-yaml', '--memory', '--input-json', sections);
    expect(result.code).toBe(ExitCode.ok);
    // The JSON is indented under the agent's name (after its progress lines, e.g. "· Team finished");
    // unindented, it parses back to the run's output.
    const indent = 'test_team_agent: '.length;
    const lines = result.out.split('\n');
    const at = lines.findIndex((line) => /^(test_team_agent: | +)\{$/.test(line) && line.length === indent + 1);
    expect(at).toBeGreaterThan(0);
    expect(lines.slice(0, at).join('\n')).toContain('· Team finished');
    const json = lines
      .slice(at)
      .map((line) => line.slice(indent))
      .join('\n');
    const output = JSON.parse(json) as { sections: { title: string; word_count: number }[] };
    expect(output.sections.map(({ title, word_count }) => [title, word_count])).toEqual([
      ['Intro', 1],
      ['Next Steps', 0],
    ]);
    // Each item's skill answered under its own label, once.
    expect(result.out.match(/^chat\[0\]: /gm)).toHaveLength(1);
    expect(result.out.match(/^chat\[1\]: /gm)).toHaveLength(1);
    expect(result.err).not.toContain('zero items');
  });

  it('parses --input (and the message after the agent) as JSON too, since the agent has an inputSchema', async () => {
    for (const argv of [['--input', sections], [sections]]) {
      const result = await troupe(repo, 'run', 'examples/team-yaml', ...argv, '--memory');
      expect(result.code).toBe(ExitCode.ok);
      expect(result.out).toContain('"title": "Next Steps"');
    }
  });

  it.each([
    [
      ['--input-json', '{"sections": [}'],
      `--input-json '{"sections": [}' is not JSON (`,
      `Give a JSON object of the shape agent 'test_team_agent' takes: { sections?: { title?: string, description?: string }[] }.`,
    ],
    [['--input-json', '[1, 2]'], `--input-json '[1, 2]' is a JSON array, not an object.`, 'Give a JSON object'],
    [
      ['--input', 'Write about intros'],
      `--input 'Write about intros' is not JSON (`,
      "Agent 'test_team_agent' takes a structured input (it has an inputSchema).",
    ],
    [
      ['--input-json', '{"sections": "intro"}'],
      `--input-json '{"sections": "intro"}' was refused: The input for agent 'test_team_agent' does not match its inputSchema: sections: must be array.`,
      'Give a JSON object of the shape',
    ],
  ])('refuses %j with exit code 2, naming the flag, the value and the fix', async (argv, problem, fix) => {
    const result = await troupe(repo, 'run', 'examples/team-yaml', '--memory', ...argv);
    expect(result.code).toBe(ExitCode.usage);
    expect(result.err).toContain(problem);
    expect(result.err).toContain(fix);
    expect(result.out).toBe('');
  });

  it('warns on stderr when the team iterates over zero items', async () => {
    const result = await troupe(repo, 'run', 'examples/team-yaml', '--memory', '--input-json', '{"section": []}');
    expect(result.code).toBe(ExitCode.ok);
    expect(result.err).toContain(
      `Warning: team 'test_team_agent' iterated over zero items: its input has no 'sections' (or an empty list), so its skills never ran. Pass them in a structured input, e.g. --input-json '{"sections": [...]}'.`,
    );
  });

  it('takes one message: --input, --input-json and a message after the agent exclude each other', async () => {
    const result = await troupe(repo, 'run', 'examples/team-yaml', 'hello', '--input-json', '{}');
    expect(result.code).toBe(ExitCode.usage);
    expect(result.err).toContain(
      `'troupe run' got --input-json and the message 'hello': give the one message to run once`,
    );
  });

  it('in a chat, takes each line as a JSON object, and says so for a line that is not one', async () => {
    const io = fakeIo(repo);
    io.stdin.end(`hello\n${sections}\nexit\n`);
    expect(await runCli(['run', 'examples/team-yaml', '--memory'], io)).toBe(ExitCode.ok);
    expect(io.err()).toContain(
      "The message 'hello' is not JSON (Unexpected token 'h', \"hello\" is not valid JSON). Agent 'test_team_agent' takes a structured input (it has an inputSchema).",
    );
    expect(io.out()).toContain('"title": "Next Steps"');
  });

  it('keeps a text message as text for an agent without an inputSchema', async () => {
    const result = await troupe(repo, 'run', 'examples/city-info', '{"not": "parsed"}', '--memory');
    expect(result.code).toBe(ExitCode.ok);
    expect(result.out).toContain('You said: "{"not": "parsed"}"');
  });
});

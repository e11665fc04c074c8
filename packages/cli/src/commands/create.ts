import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CliUsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import { parseArgsErrorMessage } from '../parse-args-error.js';

/** The project templates of `troupe create`. */
export const TEMPLATES = ['single', 'pipeline', 'team'] as const;

/** One of {@link TEMPLATES}: a single agent with a tool, a sequential pipeline, or a TeamAgent. */
export type TemplateName = (typeof TEMPLATES)[number];

/** `troupe create --help`. */
export const CREATE_USAGE = `Usage: troupe create <name> [--template single|pipeline|team] [--dir parent]

Creates the folder <name> with a Troupe app: package.json (depending on @troupe/core and
@troupe/cli; scripts start = troupe run ., test = vitest run, typecheck = tsc --noEmit),
tsconfig.json, agent.ts, agent.test.ts (the agents run with ScriptedModel) and a README.
It refuses to write into a folder that is not empty.

Templates:
  single     one LlmAgent with a tool (default)
  pipeline   a SequentialAgent: a researcher with a tool, then a writer
  team       a TeamAgent: a planner, then a writer following the plan

Options:
  --template <name>   The template (default: single)
  --dir <path>        The folder to create <name> in (default: the current directory)
  -h, --help          Show this help

Then: cd <name> && npm install && npm test && npm start
`;

const OPTIONS = {
  template: { type: 'string' },
  dir: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

/** npm's rules for a package name without a scope: lowercase, URL-safe, not starting with . or _. */
const PACKAGE_NAME = /^[a-z0-9][a-z0-9._-]*$/;

/**
 * `troupe create <name> [--template t] [--dir parent]`: writes a new app from a template into
 * `<parent>/<name>` and prints the next steps. Throws `CliUsageError` for a bad name or template
 * and for a target folder that exists and is not empty.
 */
export async function createCommand(args: readonly string[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: [...args], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CliUsageError(
      `${parseArgsErrorMessage(error, 'troupe create', OPTIONS)} Run 'troupe create --help' for the options.`,
    );
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.stdout.write(CREATE_USAGE);
    return ExitCode.ok;
  }
  if (positionals.length !== 1) {
    const got = positionals.length === 0 ? 'nothing' : positionals.map((p) => `'${p}'`).join(', ');
    throw new CliUsageError(`'troupe create' needs one project name, e.g. 'troupe create my-agents'; got ${got}.`);
  }
  const name = positionals[0]!;
  if (!PACKAGE_NAME.test(name) || name.length > 214) {
    const suggestion =
      name
        .toLowerCase()
        .replace(/[^a-z0-9._-]+/g, '-')
        .replace(/^[-._]+|[-._]+$/g, '') || 'my-agents';
    throw new CliUsageError(
      `'${name}' cannot be a package name: use lowercase letters, digits, '-', '.' and '_', starting with a letter or digit, e.g. '${suggestion}'.`,
    );
  }
  const template = values.template ?? 'single';
  if (!(TEMPLATES as readonly string[]).includes(template)) {
    throw new CliUsageError(`Unknown template '${template}'. The templates are: ${TEMPLATES.join(', ')}.`);
  }
  const target = resolve(io.cwd, values.dir ?? '.', name);
  await checkTarget(target, io.cwd);
  const files = await scaffold(target, template as TemplateName, name);
  const shown = relative(io.cwd, target) || '.';
  io.stdout.write(
    [
      `Created ${name} (template: ${template}) in ${shown.startsWith('..') ? target : `./${shown}`}: ${files.join(', ')}`,
      '',
      'Next:',
      `  cd ${shown.startsWith('..') ? target : shown}`,
      '  npm install',
      '  npm test      # the agents, with a scripted model',
      '  npm start     # chat in the terminal (offline demo model until you pass --model)',
      '',
    ].join('\n'),
  );
  return ExitCode.ok;
}

/** Refuses a target that is a file or a folder with anything in it. */
async function checkTarget(target: string, cwd: string): Promise<void> {
  const shown = relative(cwd, target) || target;
  let stats;
  try {
    stats = await stat(target);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (!stats.isDirectory())
    throw new CliUsageError(`'${shown}' exists and is a file. Choose another name, or another folder with --dir.`);
  const entries = await readdir(target);
  if (entries.length > 0) {
    const listed = entries.slice(0, 5).join(', ') + (entries.length > 5 ? ', ...' : '');
    throw new CliUsageError(
      `Folder '${shown}' is not empty (it has ${listed}); troupe create never overwrites files. Choose another name, another folder with --dir, or empty it first.`,
    );
  }
}

/**
 * Writes the template's files (those of `_shared`, then the template's own, which win) into
 * `target`: a `.tmpl` suffix is dropped, and as npm publishes neither dot files nor (with this
 * package's `files`) `*.test.*` files, `gitignore` becomes `.gitignore` and `agent_test.ts`
 * becomes `agent.test.ts`; `{{name}}`, `{{coreRange}}`, `{{cliRange}}` are filled in. Returns the file names.
 */
async function scaffold(target: string, template: TemplateName, name: string): Promise<string[]> {
  const root = fileURLToPath(new URL('../../templates/', import.meta.url));
  const values = { name, ...(await versionRanges()) };
  const files = new Map<string, string>();
  for (const folder of ['_shared', template]) {
    for (const entry of await readdir(join(root, folder))) {
      if (!entry.endsWith('.tmpl')) continue;
      const output = entry
        .slice(0, -'.tmpl'.length)
        .replace(/^gitignore$/, '.gitignore')
        .replace(/_test\./, '.test.');
      files.set(output, join(root, folder, entry));
    }
  }
  await mkdir(target, { recursive: true });
  for (const [output, source] of files) {
    const text = await readFile(source, 'utf8');
    await writeFile(
      join(target, output),
      text.replace(/\{\{(name|coreRange|cliRange)\}\}/g, (_, key: keyof typeof values) => values[key]),
    );
  }
  return [...files.keys()].sort();
}

/** Caret ranges of this CLI's version and of the @troupe/core it depends on, for the new package.json. */
async function versionRanges(): Promise<{ coreRange: string; cliRange: string }> {
  const manifest = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
    dependencies?: Record<string, string>;
  };
  const core = (manifest.dependencies?.['@troupe/core'] ?? manifest.version).replace(/^[\^~=v]+/, '');
  return { coreRange: `^${core}`, cliRange: `^${manifest.version}` };
}

import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { CliUsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import { parseArgsErrorMessage } from '../parse-args-error.js';
import { findCheckout } from '../create/checkout.js';
import { pointAtTarballs, VENDOR_FOLDER, type ProjectManifest } from '../create/local-dependencies.js';
import { packWorkspaces } from '../create/pack-workspaces.js';
import { DEFAULT_REGISTRY, PROBE_TIMEOUT_MS, probeRegistry } from '../create/registry-probe.js';

/** The project templates of `troupe create`. */
export const TEMPLATES = ['single', 'pipeline', 'team'] as const;

/** One of {@link TEMPLATES}: a single agent with a tool, a sequential pipeline, or a TeamAgent. */
export type TemplateName = (typeof TEMPLATES)[number];

/** `troupe create --help`. */
export const CREATE_USAGE = `Usage: troupe create <name> [--template single|pipeline|team] [--dir parent] [--local | --published]

Creates the folder <name> with a Troupe app: package.json (depending on @troupe/core and
@troupe/cli; scripts start = troupe run ., web = the dev UI on the sessions start made,
test = vitest run, typecheck = tsc --noEmit), tsconfig.json, agent.ts, agent.test.ts (the
agents run with ScriptedModel) and a README. It refuses to write into a folder that is not empty.

Run from a Troupe checkout, it asks the npm registry (for at most 3 s) whether this version of
@troupe/cli is published; when it is not, or with --local, it packs the checkout's packages
into <name>/vendor/ and the app installs them from there.

Templates:
  single     one LlmAgent with a tool (default)
  pipeline   a SequentialAgent: a researcher with a tool, then a writer
  team       a TeamAgent: a planner, then a writer following the plan

Options:
  --template <name>   The template (default: single)
  --dir <path>        The folder to create <name> in (default: the current directory)
  --local             Install the Troupe packages from tarballs of this checkout (needs 'npm run build')
  --published         Install the Troupe packages from the registry, without asking it first
  -h, --help          Show this help

Then: cd <name> && npm install && npm test && npm start
`;

const OPTIONS = {
  template: { type: 'string' },
  dir: { type: 'string' },
  local: { type: 'boolean' },
  published: { type: 'boolean' },
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
  if (values.local && values.published) {
    throw new CliUsageError(
      '--local and --published contradict each other: --local installs the packages packed from this checkout, --published the ones on the registry. Give one of them.',
    );
  }
  const target = resolve(io.cwd, values.dir ?? '.', name);
  await checkTarget(target, io.cwd);
  const source = await chooseSource({ local: values.local === true, published: values.published === true });
  const files = await scaffold(target, template as TemplateName, name);
  let manifest = JSON.parse(await readFile(join(target, 'package.json'), 'utf8')) as ProjectManifest;
  manifest = withWebScript(manifest);
  if (source.kind === 'local') {
    const packed = await packWorkspaces(source.checkout, join(target, VENDOR_FOLDER));
    manifest = pointAtTarballs(manifest, packed);
    files.push(`${VENDOR_FOLDER}/ (${packed.length} packages)`);
  }
  await writeFile(join(target, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const shown = relative(io.cwd, target) || '.';
  io.stdout.write(
    [
      `Created ${name} (template: ${template}) in ${shown.startsWith('..') ? target : `./${shown}`}: ${files.join(', ')}`,
      ...(source.kind === 'local' ? [`Troupe packages: ${source.reason}`] : []),
      '',
      'Next:',
      `  cd ${shown.startsWith('..') ? target : shown}`,
      '  npm install',
      '  npm test      # the agents, with a scripted model',
      '  npm start     # chat in the terminal (offline demo model until you pass --model)',
      '  npm run web   # the dev UI in the browser, on the sessions npm start made',
      '',
    ].join('\n'),
  );
  return ExitCode.ok;
}

/** Where the new app gets its Troupe packages: the registry, or tarballs packed from a checkout. */
type PackageSource = { kind: 'registry' } | { kind: 'local'; checkout: string; reason: string };

/**
 * `--published` means the registry and `--local` the checkout (refused outside one). Without
 * either, an installed CLI uses the registry (it came from there), and a checkout asks the
 * registry whether its version is published, packing the local packages when it is not or when
 * the registry does not answer in time, so `troupe create` works before the first release.
 */
async function chooseSource(flags: { local: boolean; published: boolean }): Promise<PackageSource> {
  if (flags.published) return { kind: 'registry' };
  const checkout = await findCheckout();
  if (flags.local) {
    if (checkout === undefined) {
      throw new CliUsageError(
        `--local packs the packages of a Troupe checkout, but this troupe runs from an installed copy (${fileURLToPath(new URL('../../', import.meta.url))}). Run the checkout's CLI (node <checkout>/packages/cli/bin/troupe.js create ...), or drop --local to use the published packages.`,
      );
    }
    return { kind: 'local', checkout, reason: `packed from ${checkout} (--local) into ${VENDOR_FOLDER}/` };
  }
  if (checkout === undefined) return { kind: 'registry' };
  const { version } = await cliManifest();
  const registry = process.env.npm_config_registry || DEFAULT_REGISTRY;
  const answer = await probeRegistry('@troupe/cli', version, { registry, timeoutMs: PROBE_TIMEOUT_MS });
  if (answer === 'published') return { kind: 'registry' };
  const why =
    answer === 'missing'
      ? `@troupe/cli@${version} is not on ${registry}`
      : `${registry} did not answer within ${PROBE_TIMEOUT_MS / 1000} s`;
  return { kind: 'local', checkout, reason: `${why}, so they are packed from ${checkout} into ${VENDOR_FOLDER}/` };
}

/**
 * Adds `npm run web`: the dev UI serving agent.ts as its only app, which gets the same app name
 * (the project folder's) and the same SQLite file as `troupe run .`, so it lists the sessions
 * `npm start` made.
 */
function withWebScript(manifest: ProjectManifest): ProjectManifest {
  const scripts = (manifest.scripts ?? {}) as Record<string, string>;
  const { start, ...rest } = scripts;
  return {
    ...manifest,
    scripts: { ...(start === undefined ? {} : { start }), web: 'troupe web agent.ts --db .troupe/troupe.db', ...rest },
  };
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
  const manifest = await cliManifest();
  const core = (manifest.dependencies?.['@troupe/core'] ?? manifest.version).replace(/^[\^~=v]+/, '');
  return { coreRange: `^${core}`, cliRange: `^${manifest.version}` };
}

/** This CLI's own package.json. */
async function cliManifest(): Promise<{ version: string; dependencies?: Record<string, string> }> {
  return JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
    dependencies?: Record<string, string>;
  };
}

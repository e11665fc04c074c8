// Instructions a scenario's counted runs execute, counted by valgrind (callgrind): a repeatable
// measure of the cold path where wall time on a shared 2-core machine varies by a third from one
// process to the next. The counted runs are the scenario's: a fresh process, its warm-up runs (as
// worker.mjs does them), then its runs; their instructions are those of a process doing both minus
// those of one doing the warm-up alone, each with fixed seeds so that hashing and GC timing repeat.
//
// Two V8 settings, each on one thread (nothing runs beside the counted code):
// - `--no-opt --single-threaded`: the work the code does before the optimizing compiler takes it;
// - `--single-threaded`: that plus the optimizing compiler's work, as the counted runs pay for it.
//
// Usage: node bench/instructions.mjs [scenario=graph50] [framework=troupe] [--runs N (the scenario's)]
// Needs valgrind (Debian's package). Prints one JSON line. Takes about a minute for graph50.
import { execFile, execFileSync } from 'node:child_process';
import process from 'node:process';
import console from 'node:console';
import { fileURLToPath } from 'node:url';
import { FRAMEWORKS, SCENARIOS } from './scenarios/spec.mjs';
import { warmupRuns } from './stats.mjs';

const SEEDS = ['--hash-seed=42', '--random-seed=42'];
const MODES = {
  before_optimizing: ['--no-opt', '--single-threaded'],
  with_compiles: ['--single-threaded'],
};

const args = process.argv.slice(2);
if (args[0] === '--child') await child(args[1], args[2], Number(args[3]));
else await main(args);

/** In the counted process: `n` runs of the scenario, nothing else. */
async function child(framework, scenario, n) {
  const impl = await import(`./scenarios/${framework}.mjs`);
  const s = impl[scenario]();
  for (let i = 0; i < n; i++) await s.run();
}

async function main(argv) {
  const runsAt = argv.indexOf('--runs');
  const positional = argv.filter((a, i) => !a.startsWith('--') && (runsAt < 0 || i !== runsAt + 1));
  const [scenario = 'graph50', framework = 'troupe'] = positional;
  if (!runScenarios().includes(scenario)) {
    fail(`scenario '${scenario}' is not one with counted runs; use one of ${runScenarios().join(', ')}`);
  }
  const runs = runsAt >= 0 ? Number(argv[runsAt + 1]) : SCENARIOS[scenario].runs;
  if (!FRAMEWORKS.includes(framework)) fail(`framework '${framework}' is not one of ${FRAMEWORKS.join(', ')}`);
  if (!Number.isInteger(runs) || runs < 1) fail(`--runs ${argv[runsAt + 1]} is not a positive whole number`);
  try {
    execFileSync('valgrind', ['--version'], { stdio: 'ignore' });
  } catch {
    fail('valgrind is not installed; on Debian: apt-get install valgrind');
  }
  const warmup = warmupRuns(SCENARIOS[scenario].runs);
  const result = { framework, scenario, runs, warmup };
  for (const [mode, flags] of Object.entries(MODES)) {
    // Both processes of a mode at once: each is on one thread, and this machine has two cores.
    const [warm, counted] = await Promise.all([
      instructions(flags, framework, scenario, warmup),
      instructions(flags, framework, scenario, warmup + runs),
    ]);
    result[`${mode}_minstr`] = Math.round((counted - warm) / 1e6);
  }
  result.notes = `instructions (millions) of ${runs} runs after ${warmup} in a fresh process: callgrind, node ${SEEDS.join(' ')}; before_optimizing with --no-opt --single-threaded, with_compiles with --single-threaded`;
  console.log(JSON.stringify(result));
}

/** Instructions of a whole `node` process doing `n` runs, under callgrind. */
function instructions(flags, framework, scenario, n) {
  const script = fileURLToPath(import.meta.url);
  const command = [
    '--tool=callgrind',
    '--callgrind-out-file=/dev/null',
    // V8 writes the code it runs: valgrind must notice code changing on the heap.
    '--smc-check=all-non-file',
    process.execPath,
    ...flags,
    ...SEEDS,
    script,
    '--child',
    framework,
    scenario,
    String(n),
  ];
  return new Promise((resolve, reject) => {
    execFile('valgrind', command, { maxBuffer: 64 * 1024 * 1024 }, (error, _stdout, stderr) => {
      if (error)
        return reject(new Error(`valgrind ${n} runs of ${framework} ${scenario} failed: ${stderr.slice(-800)}`));
      const match = /Collected : (\d+)/.exec(stderr);
      if (!match) return reject(new Error(`valgrind printed no instruction count: ${stderr.slice(-800)}`));
      resolve(Number(match[1]));
    });
  });
}

/** The scenarios made of repeated runs (sessions10k is one run of many sessions). */
function runScenarios() {
  return Object.keys(SCENARIOS).filter((name) => SCENARIOS[name].sessions === undefined);
}

function fail(message) {
  console.error(`instructions.mjs: ${message}`);
  process.exit(2);
}

import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, relative, resolve } from 'node:path';
import { type BaseLlm, resolveModel } from '@troupe/core';
import {
  detectEvalSetFormat,
  EvalConfigError,
  type EvalSet,
  EvalSetError,
  evaluate,
  loadEvalSet,
  sessionToEvalCase,
} from '@troupe/eval';
import { loadAgentWithModel } from '../agent-with-model.js';
import { modelUsageError } from '../default-model.js';
import { CliUsageError } from '../errors.js';
import { ExitCode } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import { createSessionStore, DEFAULT_DB_PATH } from '../session-store.js';
import { type EvalCaptureOptions, type EvalRunOptions, parseEvalOptions } from './eval-options.js';
import { formatEvalTable } from './eval-table.js';

/** `troupe eval --help`. */
export const EVAL_USAGE = `Usage: troupe eval <agent file or dir> <evalset.json> [options]
       troupe eval --from-session <id> --app <name> --out <evalset.json> [--db path] [--user id]

Runs every case of an eval set (Troupe or ADK *.evalset.json format) against the agent, each case
on a fresh in-memory session, turn by turn, and scores each turn's tool calls and final response.
Prints a table of case, metric, score, threshold and result.

Options:
  --model <model>            Default model for agents that set none (without it: the offline demo model)
  --metrics <a,b>            Metrics to score (default: trajectory_exact,response_match):
                             trajectory_exact, trajectory_in_order, trajectory_any_order,
                             trajectory_f1, response_match, llm_judge (ADK names work too)
  --threshold <metric=value> Pass mark from 0 to 1, repeatable; also turns the metric on
                             (defaults: trajectory 1, response_match 0.8, llm_judge 0.7)
  --judge-model <model>      Model that scores llm_judge (turns it on)
  --json                     Print the report as JSON instead of the table
  -h, --help                 Show this help

Saving a session as an eval case (sessions of 'troupe run' and the dev UI live in .troupe/troupe.db):
  --from-session <id>        The session to save; its turns, answers and tool calls become the case
  --app <name>               The app it belongs to (the agent's folder name, or its file name)
  --user <id>                Its user (default: user)
  --db <path>                The SQLite file (default: .troupe/troupe.db)
  --out <file>               The eval set file to add the case to (created when missing)
  --eval-id <id>             The case's id (default: the session id)

Exit codes: 0 every case passed, 1 a case missed a threshold or its run failed, 2 bad usage.
`;

/**
 * `troupe eval <agent> <evalset.json>`: evaluates the agent and prints the report; exit code 0
 * when every case passed, 1 otherwise. `troupe eval --from-session <id> ...`: adds a stored session
 * to an eval set file as a case. Throws `CliUsageError` / `AgentLoadError` for bad arguments.
 */
export async function evalCommand(args: readonly string[], io: CliIo): Promise<number> {
  const options = parseEvalOptions(args);
  switch (options.mode) {
    case 'help':
      io.stdout.write(EVAL_USAGE);
      return ExitCode.ok;
    case 'capture':
      return captureSession(options, io);
    case 'evaluate':
      return evaluateAgent(options, io);
  }
}

async function evaluateAgent(options: EvalRunOptions, io: CliIo): Promise<number> {
  const evalSet = await readEvalSet(options.evalSetPath, io.cwd);
  const { loaded, defaultModel, offlineNotice } = await loadAgentWithModel(options.target, options.model, io);
  const judgeModel = options.judgeModel === undefined ? undefined : judge(options.judgeModel);
  // Once the command line is accepted: a bad --judge-model is the only thing to say then.
  if (offlineNotice) io.stderr.write(`${offlineNotice}\n`);
  const controller = new AbortController();
  const stopListening = io.onInterrupt(() => controller.abort());
  try {
    const report = await evaluate({
      agent: loaded.agent,
      evalSet,
      ...(options.metrics ? { metrics: options.metrics } : {}),
      thresholds: options.thresholds,
      ...(judgeModel ? { judgeModel } : {}),
      runnerOptions: { appName: loaded.appName, defaultModel: defaultModel.model },
      abortSignal: controller.signal,
    });
    io.stdout.write(options.json ? `${JSON.stringify(report, null, 2)}\n` : formatEvalTable(report));
    return report.passed ? ExitCode.ok : ExitCode.failed;
  } catch (error) {
    if (controller.signal.aborted) {
      io.stderr.write('troupe: evaluation cancelled.\n');
      return ExitCode.cancelled;
    }
    if (error instanceof EvalConfigError) throw new CliUsageError(evalConfigMessage(error.message));
    throw error;
  } finally {
    stopListening();
  }
}

/** The evaluator's message, with the flag that fixes it when the problem is a missing judge. */
function evalConfigMessage(message: string): string {
  return /needs a judgeModel/.test(message)
    ? `The llm_judge metric needs a model to judge with: add \`--judge-model <model>\` (e.g. --judge-model openai/gpt-4o-mini), or leave llm_judge out of --metrics and --threshold.`
    : message;
}

async function readEvalSet(path: string, cwd: string): Promise<EvalSet> {
  try {
    return await loadEvalSet(resolve(cwd, path));
  } catch (error) {
    if (error instanceof EvalSetError) throw new CliUsageError(error.message.replace(resolve(cwd, path), path));
    throw error;
  }
}

function judge(model: string): BaseLlm {
  try {
    return resolveModel(model);
  } catch (error) {
    throw modelUsageError('--judge-model', model, error);
  }
}

/** Adds the stored session to the eval set file `--out` as a case (replacing a case with its id). */
async function captureSession(options: EvalCaptureOptions, io: CliIo): Promise<number> {
  const dbPath = resolve(io.cwd, options.db ?? DEFAULT_DB_PATH);
  if (!existsSync(dbPath)) {
    throw new CliUsageError(
      `No session store at ${dbPath}. 'troupe run' and 'troupe web' keep sessions in .troupe/troupe.db under the folder they ran in: run this there, or pass --db <path>.`,
    );
  }
  const store = createSessionStore({ cwd: io.cwd, db: dbPath });
  let session;
  let known: string[];
  try {
    const request = { appName: options.appName, userId: options.userId };
    session = await store.service.getSession({ ...request, sessionId: options.sessionId });
    known = session ? [] : (await store.service.listSessions(request)).sessions.map((s) => s.id);
  } finally {
    await store.close();
  }
  if (!session) {
    const list =
      known.length > 0
        ? `Its sessions for app '${options.appName}' and user '${options.userId}': ${known.slice(-10).join(', ')}.`
        : `It has no sessions for app '${options.appName}' and user '${options.userId}'; check --app and --user.`;
    throw new CliUsageError(`Session '${options.sessionId}' is not in ${dbPath}. ${list}`);
  }
  let evalCase;
  try {
    evalCase = sessionToEvalCase(session, options.evalId !== undefined ? { evalId: options.evalId } : {});
  } catch (error) {
    if (error instanceof EvalSetError) throw new CliUsageError(error.message);
    throw error;
  }
  const out = resolve(io.cwd, options.out);
  const set = await readOrStartSet(out, options.out);
  const cases = set.cases;
  const existing = cases.findIndex(
    (c) => typeof c === 'object' && c !== null && (c as { id?: unknown }).id === evalCase.id,
  );
  if (existing >= 0) cases[existing] = evalCase;
  else cases.push(evalCase);
  await mkdir(dirname(out), { recursive: true });
  await writeFile(out, `${JSON.stringify(set, null, 2)}\n`);
  const turns = `${evalCase.turns.length} turn${evalCase.turns.length === 1 ? '' : 's'}`;
  io.stdout.write(
    `${existing >= 0 ? 'Replaced' : 'Added'} case '${evalCase.id}' (${turns}) in ${relative(io.cwd, out) || out}.\n`,
  );
  return ExitCode.ok;
}

/** The eval set file's JSON (Troupe format) to add a case to, or a new set named after the file. */
async function readOrStartSet(path: string, shown: string): Promise<Record<string, unknown> & { cases: unknown[] }> {
  if (!existsSync(path)) return { id: basename(path).replace(/(\.evalset)?\.json$/i, ''), cases: [] };
  let json: unknown;
  try {
    json = JSON.parse(await readFile(path, 'utf8'));
  } catch (error) {
    throw new CliUsageError(
      `--out ${shown} exists but is not valid JSON (${(error as Error).message}); give another file or fix it.`,
    );
  }
  const format = detectEvalSetFormat(json);
  if (format === 'adk')
    throw new CliUsageError(
      `--out ${shown} is an ADK eval set; cases are saved in the Troupe format. Give another file (both formats can be evaluated).`,
    );
  if (format !== 'troupe' || !Array.isArray((json as { cases?: unknown }).cases)) {
    throw new CliUsageError(
      `--out ${shown} exists and is not a Troupe eval set (an object with a "cases" array); give another file.`,
    );
  }
  return json as Record<string, unknown> & { cases: unknown[] };
}

import { Runner } from '@troupe/core';
import { agentsUsingDefaultModel, chooseDefaultModel, offlineModelNotice } from '../default-model.js';
import { jsonLinesSink, transcriptSink, type EventSink } from '../event-sinks.js';
import { ExitCode, exitCodeFor } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import { loadAgentModule } from '../load-agent.js';
import { outcomeMessage, runTurn } from '../run-turn.js';
import { createSessionService, openSession } from '../session-store.js';
import { RUN_USAGE } from '../usage.js';
import { chat } from './chat.js';
import { parseRunOptions } from './run-options.js';

/**
 * `troupe run <agent file or dir> [--model m] [--input text] [--json] [--session id] [--user id]`:
 * loads the agent, then chats with it, or with `--input` runs one turn and returns its exit code.
 * Throws `CliUsageError` / `AgentLoadError` for bad arguments and agent files.
 */
export async function runCommand(args: readonly string[], io: CliIo): Promise<number> {
  const options = parseRunOptions(args);
  if (options.help) {
    io.stdout.write(RUN_USAGE);
    return ExitCode.ok;
  }
  const loaded = await loadAgentModule(options.target, { cwd: io.cwd });
  // After loading: the agent module may register model providers.
  const defaultModel = chooseDefaultModel(options.model);
  if (defaultModel.offline) {
    const users = agentsUsingDefaultModel(loaded.agent);
    if (users.length > 0) io.stderr.write(`${offlineModelNotice(users)}\n`);
  }
  const runner = new Runner({ appName: loaded.appName, agent: loaded.agent, sessionService: createSessionService(), defaultModel: defaultModel.model });
  const session = await openSession(runner.sessionService, { appName: runner.appName, userId: options.userId, sessionId: options.sessionId });
  const sink = options.json ? jsonLinesSink(io) : transcriptSink(io);
  if (options.input === undefined) {
    return chat({ runner, userId: options.userId, sessionId: session.id, sink, io, promptOutput: options.json ? io.stderr : io.stdout });
  }
  return runOnce(runner, { userId: options.userId, sessionId: session.id, message: options.input }, sink, io);
}

/** Runs one message; Ctrl-C cancels the run. */
async function runOnce(runner: Runner, turn: { userId: string; sessionId: string; message: string }, sink: EventSink, io: CliIo): Promise<number> {
  const controller = new AbortController();
  const stopListening = io.onInterrupt(() => controller.abort());
  try {
    const outcome = await runTurn(runner, { ...turn, abortSignal: controller.signal }, sink);
    const line = outcomeMessage(outcome, sink);
    if (line) io.stderr.write(`${line}\n`);
    return exitCodeFor(outcome.status);
  } finally {
    stopListening();
  }
}

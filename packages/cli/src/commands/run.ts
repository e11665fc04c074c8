import {
  AddSessionToMemoryPlugin,
  type BasePlugin,
  type InterruptInfo,
  InputValidationError,
  Runner,
  SaveFilesAsArtifactsPlugin,
  type SessionKey,
  type SessionService,
} from '@troupe/core';
import { openInterrupts } from '@troupe/core/hosting';
import { messageWithAttachments } from '../attachments.js';
import { Conversation } from '../conversation.js';
import { loadAgentWithModel } from '../agent-with-model.js';
import { warnOnEmptyTeams } from '../empty-team-warning.js';
import { jsonLinesSink, transcriptSink } from '../event-sinks.js';
import { ExitCode, exitCodeFor } from '../exit-codes.js';
import { FirstRunNotice } from '../first-run-notice.js';
import { interruptHandler } from '../interrupt-keys.js';
import type { CliIo } from '../io.js';
import { createLineReader, type LineReader } from '../line-reader.js';
import { ProgressPlugin } from '../progress-plugin.js';
import { inputRefusedError, oneShotMessage, type TurnMessage } from '../run-input.js';
import { outcomeMessage, type TurnOutcome } from '../run-turn.js';
import { createSessionStore, openSession } from '../session-store.js';
import { ShowUserEvent } from '../show-user-event.js';
import { Spinner } from '../spinner.js';
import { styleFor } from '../terminal-style.js';
import { RUN_USAGE } from '../usage.js';
import { chat, type ChatOptions } from './chat.js';
import { parseRunOptions, type RunOptions } from './run-options.js';

/**
 * `troupe run <agent file or dir> [--model m] [--input text] [--attach file]... [--json] [--session id] [--user id] [--db path | --memory] [--compact-every n [--compact-overlap k]]`:
 * loads the agent, opens the session store (SQLite at `.troupe/troupe.db` by default), then chats
 * with the agent, or with `--input` runs one turn and returns its exit code. Interrupts are asked
 * at the prompt, except in a one-shot run whose stdin is not a terminal. Throws `CliUsageError` /
 * `AgentLoadError` for bad arguments and agent files.
 */
export async function runCommand(args: readonly string[], io: CliIo): Promise<number> {
  const options = parseRunOptions(args);
  if (options.help) {
    io.stdout.write(RUN_USAGE);
    return ExitCode.ok;
  }
  const { loaded, defaultModel, offlineNotice } = await loadAgentWithModel(options.target, options.model, io);
  const oneShot = oneShotOf(options, loaded.agent);
  if (oneShot && 'text' in oneShot.message && options.attachments.length > 0)
    oneShot.message.content = await messageWithAttachments(oneShot.message.text, options.attachments, io.cwd);
  const env = io.env ?? process.env;
  const style = styleFor(io.stdout, env);
  const errorStyle = styleFor(io.stderr, env);
  // The spinner is for a person watching a terminal; scripts reading --json get none.
  const spinner = !options.json && io.stderr.isTTY === true ? new Spinner(io.stderr, errorStyle) : undefined;
  const sink = warnOnEmptyTeams(
    options.json
      ? jsonLinesSink(io)
      : transcriptSink(io, {
          style,
          errorStyle,
          ...(spinner ? { spinner } : {}),
          agentKind: (author) => loaded.agent.findAgent(author)?.kind,
        }),
    loaded.agent,
    io,
    errorStyle,
  );
  // Printed when the run starts (a chat: before its prompt), never before a usage error.
  const notice = new FirstRunNotice((text) => {
    spinner?.clear();
    io.stderr.write(text);
  });
  if (offlineNotice) notice.add(offlineNotice);
  const plugins: BasePlugin[] = [notice, rememberEachTurn(io)];
  // Files sent with --attach become the session's artifacts; the stored message keeps a reference.
  if (options.attachments.length > 0) plugins.push(new SaveFilesAsArtifactsPlugin());
  if (spinner) plugins.push(new ProgressPlugin((activity) => spinner.update(activity)));
  if (options.json) plugins.push(new ShowUserEvent(() => sink));
  const store = createSessionStore({ cwd: io.cwd, db: options.db, memory: options.memory });
  const runner = new Runner({
    appName: loaded.appName,
    agent: loaded.agent,
    sessionService: store.service,
    artifactService: store.artifacts,
    memoryService: store.memories,
    plugins,
    defaultModel: defaultModel.model,
    ...(options.compaction ? { compaction: options.compaction } : {}),
  });
  try {
    const request = { appName: runner.appName, userId: options.userId, sessionId: options.sessionId };
    // The session this command makes: a new one, or the --session named that did not exist yet.
    const made =
      options.sessionId === undefined ||
      (await runner.sessionService.getSession({ ...request, sessionId: options.sessionId })) === undefined;
    const session = await openSession(runner.sessionService, request);
    if (made && options.sessionId !== undefined)
      notice.add(
        `troupe: new session ${session.id}: app '${runner.appName}' has no session '${session.id}' for user '${options.userId}'${store.path !== undefined ? ` in ${store.path}` : ''}. To continue an existing one, check --session, --user and --db.`,
      );
    const promptOutput = options.json ? io.stderr : io.stdout;
    const promptStyle = options.json ? errorStyle : style;
    const resumeHint = resumeHintFor(options, session.id, store.path !== undefined);
    const waiting = openInterrupts(session.events);
    const shared = {
      runner,
      userId: options.userId,
      sessionId: session.id,
      sink,
      io,
      promptOutput,
      style: promptStyle,
      history: session.events,
    };
    const clearSpinner = () => spinner?.clear();
    if (oneShot === undefined) {
      notice.flush();
      return await chat({ ...shared, openInterrupts: waiting, resumeHint, beforeNotice: clearSpinner });
    }
    let code: number;
    try {
      code = await runOnce({ ...shared, resumeHint, beforeNotice: clearSpinner }, oneShot.message, waiting);
    } catch (error) {
      // A run refused before it stored anything leaves no session of its own making behind.
      if (made) await forgetIfEmpty(runner.sessionService, { ...request, sessionId: session.id });
      if (error instanceof InputValidationError && 'input' in oneShot.message)
        throw inputRefusedError(oneShot.source, oneShot.value, loaded.agent, error.message);
      throw error;
    }
    // A new session's id, so the user can continue it with --session.
    if (options.sessionId === undefined && store.path !== undefined) io.stderr.write(`session: ${session.id}\n`);
    return code;
  } finally {
    spinner?.stop();
    // Toolsets (MCP servers) hold child processes and connections that would keep Node running.
    await runner.close().finally(() => store.close());
  }
}

/** Deletes a session this command made when nothing was stored in it (the store's failure to do so is not the user's problem). */
async function forgetIfEmpty(service: SessionService, key: SessionKey): Promise<void> {
  try {
    const session = await service.getSession({ ...key, numRecentEvents: 1 });
    if (session && session.events.length === 0) await service.deleteSession(key);
  } catch {
    // The refusal is what the user needs to hear; an empty session left behind is harmless.
  }
}

/** The message of a one-shot run (`--input`, `--input-json` or the message after the agent), or undefined to chat. */
function oneShotOf(
  options: RunOptions,
  agent: Runner['agent'],
): { message: TurnMessage; source: NonNullable<RunOptions['inputSource']>; value: string } | undefined {
  const value = options.inputJson ?? options.input;
  if (value === undefined || options.inputSource === undefined) return undefined;
  return { message: oneShotMessage(options.inputSource, value, agent), source: options.inputSource, value };
}

/**
 * Adds the session to memory (the SQLite file, or this process with --memory) after every turn,
 * so a later `troupe run` of the same user recalls it (`load_memory`, `preload_memory`).
 */
function rememberEachTurn(io: CliIo): AddSessionToMemoryPlugin {
  return new AddSessionToMemoryPlugin({
    onError: (error, session) =>
      io.stderr.write(
        `Warning: session '${session.id}' could not be added to memory: ${error instanceof Error ? error.message : String(error)}\n`,
      ),
  });
}

/** A one-shot run talks to the same things as a chat, and always knows how to continue. */
type OneShot = Omit<ChatOptions, 'openInterrupts' | 'resumeHint'> & { resumeHint: string };

/**
 * Runs one message; Ctrl-C cancels the run (a second one quits). When a person is at the terminal,
 * interrupts (those the session already waits on, then those the run raises) are asked at the
 * prompt; otherwise a paused run ends with exit code 4 and a line saying how to answer. Throws the
 * runner's `InputValidationError` when a structured input does not match the agent's schema.
 */
async function runOnce(shot: OneShot, message: TurnMessage, waiting: readonly InterruptInfo[]): Promise<number> {
  const { runner, userId, sessionId, sink, io } = shot;
  let reader: LineReader | undefined;
  const onInterrupt = interruptHandler(
    io,
    () => conversation,
    () => reader?.close(),
    shot.beforeNotice,
  );
  let stopListening: () => void;
  if (io.stdin.isTTY === true) {
    reader = createLineReader(io, shot.promptOutput, onInterrupt);
    stopListening = () => reader!.close();
  } else {
    stopListening = io.onInterrupt(onInterrupt);
  }
  const conversation = new Conversation({
    runner,
    userId,
    sessionId,
    sink,
    io,
    reader,
    style: shot.style,
    history: shot.history,
  });
  try {
    let outcome: TurnOutcome | undefined;
    if (waiting.length > 0) {
      outcome = await conversation.answer({ status: 'interrupted', interrupts: [...waiting], errorEventShown: false });
      if (outcome.status === 'completed') outcome = undefined;
    }
    outcome ??= await conversation.send(message);
    if (outcome.error instanceof InputValidationError && !outcome.errorEventShown) throw outcome.error;
    const line = outcomeMessage(outcome, sink, shot.resumeHint);
    if (line) io.stderr.write(`${line}\n`);
    return exitCodeFor(outcome.status);
  } finally {
    stopListening();
  }
}

/** How to answer a paused run later: the command that continues the session at a terminal. */
function resumeHintFor(options: RunOptions, sessionId: string, persistent: boolean): string {
  if (!persistent) return 'Sessions kept with --memory end with this command: run without --memory to answer later.';
  const parts = ['troupe run', quote(options.target), '--session', quote(sessionId)];
  if (options.userId !== 'user') parts.push('--user', quote(options.userId));
  if (options.db !== undefined) parts.push('--db', quote(options.db));
  return `To answer, continue the session (its questions are asked at the prompt): ${parts.join(' ')}`;
}

function quote(value: string): string {
  return /^[\w./:@=+-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

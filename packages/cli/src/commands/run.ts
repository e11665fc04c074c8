import { AddSessionToMemoryPlugin, type InterruptInfo, Runner } from '@troupe/core';
import { openInterrupts } from '@troupe/core/hosting';
import { Conversation } from '../conversation.js';
import { loadAgentWithModel } from '../agent-with-model.js';
import { jsonLinesSink, transcriptSink } from '../event-sinks.js';
import { ExitCode, exitCodeFor } from '../exit-codes.js';
import type { CliIo } from '../io.js';
import { createLineReader, type LineReader } from '../line-reader.js';
import { outcomeMessage, type TurnOutcome } from '../run-turn.js';
import { createSessionStore, openSession } from '../session-store.js';
import { RUN_USAGE } from '../usage.js';
import { chat, type ChatOptions } from './chat.js';
import { parseRunOptions, type RunOptions } from './run-options.js';

/**
 * `troupe run <agent file or dir> [--model m] [--input text] [--json] [--session id] [--user id] [--db path | --memory] [--compact-every n [--compact-overlap k]]`:
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
  const { loaded, defaultModel } = await loadAgentWithModel(options.target, options.model, io);
  const store = createSessionStore({ cwd: io.cwd, db: options.db, memory: options.memory });
  const runner = new Runner({
    appName: loaded.appName,
    agent: loaded.agent,
    sessionService: store.service,
    artifactService: store.artifacts,
    memoryService: store.memories,
    plugins: [rememberEachTurn(io)],
    defaultModel: defaultModel.model,
    ...(options.compaction ? { compaction: options.compaction } : {}),
  });
  try {
    const session = await openSession(runner.sessionService, {
      appName: runner.appName,
      userId: options.userId,
      sessionId: options.sessionId,
    });
    const sink = options.json ? jsonLinesSink(io) : transcriptSink(io);
    const promptOutput = options.json ? io.stderr : io.stdout;
    const resumeHint = resumeHintFor(options, session.id, store.path !== undefined);
    const waiting = openInterrupts(session.events);
    if (options.input === undefined) {
      return await chat({
        runner,
        userId: options.userId,
        sessionId: session.id,
        sink,
        io,
        promptOutput,
        openInterrupts: waiting,
        resumeHint,
      });
    }
    const code = await runOnce(
      { runner, userId: options.userId, sessionId: session.id, sink, io, promptOutput, resumeHint },
      options.input,
      waiting,
    );
    // A new session's id, so the user can continue it with --session.
    if (options.sessionId === undefined && store.path !== undefined) io.stderr.write(`session: ${session.id}\n`);
    return code;
  } finally {
    // Toolsets (MCP servers) hold child processes and connections that would keep Node running.
    await runner.close().finally(() => store.close());
  }
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
 * Runs one message; Ctrl-C cancels the run. When a person is at the terminal, interrupts (those
 * the session already waits on, then those the run raises) are asked at the prompt; otherwise a
 * paused run ends with exit code 4 and a line saying how to answer.
 */
async function runOnce(shot: OneShot, message: string, waiting: readonly InterruptInfo[]): Promise<number> {
  const { runner, userId, sessionId, sink, io } = shot;
  let reader: LineReader | undefined;
  const onInterrupt = (): void => {
    if (!conversation.cancel()) reader?.close();
  };
  let stopListening: () => void;
  if (io.stdin.isTTY === true) {
    reader = createLineReader(io, shot.promptOutput, onInterrupt);
    stopListening = () => reader!.close();
  } else {
    stopListening = io.onInterrupt(onInterrupt);
  }
  const conversation = new Conversation({ runner, userId, sessionId, sink, io, reader });
  try {
    let outcome: TurnOutcome | undefined;
    if (waiting.length > 0) {
      outcome = await conversation.answer({ status: 'interrupted', interrupts: [...waiting], errorEventShown: false });
      if (outcome.status === 'completed') outcome = undefined;
    }
    outcome ??= await conversation.send(message);
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

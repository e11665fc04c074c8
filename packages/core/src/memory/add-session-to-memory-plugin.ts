import type { InvocationContext } from '../agents/invocation-context.js';
import { BasePlugin } from '../runner/base-plugin.js';
import type { Session } from '../sessions/session.js';
import { EmbeddingError } from './embedding-error.js';

/** Options of {@link AddSessionToMemoryPlugin}. */
export interface AddSessionToMemoryPluginOptions {
  /**
   * Told when adding a session fails (e.g. the memory store is down, or its embedding provider).
   * Without it, `runAsync` throws a store failure once every event of the run is yielded and
   * stored (`run` resolves with the run's result all the same); an {@link EmbeddingError} never
   * fails the run: without this listener it becomes a process warning (`process.emitWarning`, code
   * `EMBEDDING_FAILED`).
   */
  onError?: (error: unknown, session: Pick<Session, 'appName' | 'userId' | 'id'>) => void;
}

/**
 * Adds the session to the runner's memory (`Runner({ memoryService })`) after every run and
 * resume of it, however it ended, so later sessions of the user can recall it with
 * `loadMemoryTool` or `preloadMemoryTool`. The troupe CLI, `createApp({ memoryService })` and
 * `RunWorker({ memoryService })` use it; a Runner without a memory service is left alone.
 *
 * ADK leaves this step to the app (`memoryService.addSessionToMemory(session)`); this plugin is
 * that call, made at the end of each run. A failure of the embedding model (an
 * {@link EmbeddingError}: the session's text is stored, its vectors wait for the next add) is told
 * to `onError` and never fails the run.
 *
 * @example
 * const runner = new Runner({ appName, agent, sessionService, memoryService, plugins: [new AddSessionToMemoryPlugin()] });
 */
export class AddSessionToMemoryPlugin extends BasePlugin {
  private readonly onError: AddSessionToMemoryPluginOptions['onError'];

  constructor(options: AddSessionToMemoryPluginOptions = {}) {
    super('add-session-to-memory');
    this.onError = options.onError;
  }

  override async afterRun({ context }: { context: InvocationContext }): Promise<undefined> {
    const memory = context.shared.memoryService;
    if (!memory) return undefined;
    const { appName, userId, id } = context.session;
    try {
      // The run's own session holds every stored event (the runner reads sessions whole), so no
      // second read of a long session is needed.
      await memory.addSessionToMemory(context.session);
    } catch (error) {
      if (this.onError) this.onError(error, { appName, userId, id });
      else if (error instanceof EmbeddingError) warn(error, id);
      else throw error;
    }
    return undefined;
  }
}

/**
 * The session's text is in memory and its vectors are retried at the next add, so the run stands;
 * the failure is still told, through Node's channel for library warnings (shown on stderr unless
 * the app listens to `process.on('warning')` or runs with --no-warnings).
 */
function warn(error: EmbeddingError, sessionId: string): void {
  const message = `Session '${sessionId}' was added to memory without its vectors (found by words until the next add embeds them): ${error.message}`;
  const runtime = globalThis as {
    process?: { emitWarning?: (message: string, options: { type: string; code: string }) => void };
    reportError?: (error: unknown) => void;
  };
  if (typeof runtime.process?.emitWarning === 'function') {
    runtime.process.emitWarning(message, { type: 'EmbeddingError', code: error.code });
  } else {
    // Browsers and workers have no process: reportError is their channel for errors nobody awaits.
    runtime.reportError?.(error);
  }
}

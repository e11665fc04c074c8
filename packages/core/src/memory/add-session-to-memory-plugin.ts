import type { InvocationContext } from '../agents/invocation-context.js';
import { BasePlugin } from '../runner/base-plugin.js';
import type { Session } from '../sessions/session.js';

/** Options of {@link AddSessionToMemoryPlugin}. */
export interface AddSessionToMemoryPluginOptions {
  /**
   * Told when adding a session fails (e.g. the memory store is down). Without it, `runAsync` throws
   * the failure once every event of the run is yielded and stored (`run` resolves with the run's
   * result all the same).
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
 * that call, made at the end of each run.
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
      if (!this.onError) throw error;
      this.onError(error, { appName, userId, id });
    }
    return undefined;
  }
}

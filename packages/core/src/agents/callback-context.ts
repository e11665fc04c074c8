import type { ArtifactService } from '../artifacts/artifact-service.js';
import type { Part } from '../events/content.js';
import type { EventActions } from '../events/event.js';
import { ConfigurationError } from '../errors.js';
import type { Session } from '../sessions/session.js';
import { State } from '../sessions/state.js';
import type { InvocationContext } from './invocation-context.js';

/** The side effects a callback, tool or function agent may set on its event. */
export type MutableActions = Pick<EventActions, 'escalate' | 'transferToAgent' | 'skipSummarization'>;

/**
 * What agent and model callbacks receive: the state (writes are recorded as a delta on the
 * step's event), actions, and the invocation.
 */
export class CallbackContext {
  // Made on first use: most contexts (a node's, a model call's) are never asked for them.
  private stateOf: State | undefined;
  private actionsOf: MutableActions | undefined;
  /** Artifacts saved through this context: filename → version, for the event's `artifactDelta`. */
  private artifactDelta: Record<string, number> | undefined;

  constructor(readonly invocationContext: InvocationContext) {}

  /** Current state; `set` records a delta. */
  get state(): State {
    return (this.stateOf ??= new State(this.invocationContext.session.state));
  }

  /** Set `escalate`, `transferToAgent` or `skipSummarization`. */
  get actions(): MutableActions {
    return (this.actionsOf ??= {});
  }

  get agentName(): string {
    return this.invocationContext.agent.name;
  }

  get invocationId(): string {
    return this.invocationContext.invocationId;
  }

  get session(): Session {
    return this.invocationContext.session;
  }

  get input(): Record<string, unknown> {
    return this.invocationContext.input;
  }

  get abortSignal(): AbortSignal {
    return this.invocationContext.abortSignal;
  }

  /**
   * Stores a custom event (`event.customEvent = { name, data }`) in order with the run's other
   * events and streams it to every client; a model never sees it. Resolves once it is stored.
   * @example
   * await ctx.emit('progress', { done: 3, total: 10 });
   */
  emit(name: string, data?: unknown): Promise<void> {
    return this.invocationContext.emit(name, data);
  }

  /** Throws the run's abort reason once it is cancelled: call it between steps of long work. */
  throwIfAborted(): void {
    this.invocationContext.throwIfAborted();
  }

  /**
   * Saves a new version of an artifact of this session (a `user:` filename: of the user, shared by
   * all their sessions of the app) and answers its number; the step's event records it in
   * `actions.artifactDelta`. Needs `Runner({ artifactService })`.
   * @example
   * const version = await ctx.saveArtifact('chart.png', { inlineData: { mimeType: 'image/png', data: base64 } });
   */
  async saveArtifact(filename: string, artifact: Part): Promise<number> {
    const version = await this.artifactService('saveArtifact').saveArtifact({
      ...this.artifactScope(),
      filename,
      artifact,
    });
    (this.artifactDelta ??= {})[filename] = version;
    return version;
  }

  /** The given (or latest) version of an artifact; `undefined` when it does not exist. */
  loadArtifact(filename: string, version?: number): Promise<Part | undefined> {
    return this.artifactService('loadArtifact').loadArtifact({
      ...this.artifactScope(),
      filename,
      ...(version === undefined ? {} : { version }),
    });
  }

  /** The artifact filenames this session sees (its own and the user's `user:` ones), sorted. */
  listArtifacts(): Promise<string[]> {
    return this.artifactService('listArtifacts').listArtifactKeys(this.artifactScope());
  }

  /** Merges the recorded state delta and actions into an event's actions. */
  applyTo(actions: EventActions): void {
    const state = this.stateOf;
    if (state?.hasDelta()) Object.assign(actions.stateDelta, state.delta);
    if (this.artifactDelta) Object.assign(actions.artifactDelta, this.artifactDelta);
    const own = this.actionsOf;
    if (!own) return;
    if (own.escalate !== undefined) actions.escalate = own.escalate;
    if (own.transferToAgent !== undefined) actions.transferToAgent = own.transferToAgent;
    if (own.skipSummarization !== undefined) actions.skipSummarization = own.skipSummarization;
  }

  /** True when the callback wrote state, saved an artifact or set an action. */
  hasEffects(): boolean {
    return (
      this.stateOf?.hasDelta() === true ||
      (this.actionsOf !== undefined && Object.keys(this.actionsOf).length > 0) ||
      this.artifactDelta !== undefined
    );
  }

  private artifactScope(): { appName: string; userId: string; sessionId: string } {
    const session = this.invocationContext.session;
    return { appName: session.appName, userId: session.userId, sessionId: session.id };
  }

  private artifactService(method: string): ArtifactService {
    const service = this.invocationContext.shared.artifactService;
    if (!service) {
      throw new ConfigurationError(
        `ctx.${method}() needs an artifact store, and the Runner has none. Pass one: new Runner({ ..., artifactService: new InMemoryArtifactService() }) (or FileArtifactService, SqliteArtifactService, PostgresArtifactService).`,
      );
    }
    return service;
  }
}

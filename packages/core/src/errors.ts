import type { ErrorCode } from './error-codes.js';
import type { SessionKey } from './sessions/session.js';

/** Options of every {@link TroupeError}. */
export interface TroupeErrorOptions {
  /** The error this one was made from. */
  cause?: unknown;
  /**
   * The fix, when it is a call of this library (`runner.resume({ responses })`): the message is
   * the problem, then this. Kept apart ({@link TroupeError.remedy}) so a host that offers Troupe
   * another way, such as the HTTP server, can name its own fix (the route to call) instead.
   */
  remedy?: string;
}

/**
 * Every error Troupe throws on purpose is a {@link TroupeError}: it has a stable `code`
 * a program can switch on, and a message that says what happened, the offending value and the fix.
 */
export class TroupeError extends Error {
  /** A stable, machine-readable code such as `AGENT_TREE` or `SESSION_BUSY`: one of {@link ERROR_CODES} (docs/errors.md). */
  readonly code: ErrorCode;
  /** The message without {@link remedy}: what happened and the value at fault. */
  readonly problem: string;
  /** The fix named in the message when it is a call of this library (see {@link TroupeErrorOptions.remedy}). */
  readonly remedy: string | undefined;

  constructor(code: ErrorCode, message: string, options?: TroupeErrorOptions) {
    super(
      options?.remedy === undefined ? message : `${message} ${options.remedy}`,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
    this.code = code;
    this.problem = message;
    this.remedy = options?.remedy;
    this.name = new.target.name;
  }
}

/** Options of the errors about one session: which session, so a host can name its own routes for it. */
export interface SessionErrorOptions extends TroupeErrorOptions {
  /** The session the error is about. */
  session?: SessionKey;
}

/** The agent tree is malformed: bad or duplicate names, or an agent given a second parent. */
export class AgentTreeError extends TroupeError {
  constructor(message: string) {
    super('AGENT_TREE', message);
  }
}

/** An instruction template names a state key that is not set. */
export class TemplateError extends TroupeError {
  constructor(
    message: string,
    readonly agentName: string,
    readonly key: string,
  ) {
    super('TEMPLATE', message);
  }
}

/** A router chose no agent or model, or one that does not exist. */
export class RoutingError extends TroupeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('ROUTING', message, options);
  }
}

/** An agent was asked (by its model or a callback) to transfer to an agent that is not an allowed target. */
export class TransferTargetError extends TroupeError {
  constructor(message: string) {
    super('TRANSFER_TARGET', message);
  }
}

/** A team's reviewer did not approve within its iteration limit. */
export class ReflectionError extends TroupeError {
  constructor(message: string) {
    super('REFLECTION', message);
  }
}

/** A value did not match the schema it was declared with (agent output or input, tool arguments). */
export class OutputValidationError extends TroupeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('OUTPUT_VALIDATION', message, options);
  }
}

/** An input that does not match a declared input schema (team, agent or tool input). */
export class InputValidationError extends TroupeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('INPUT_VALIDATION', message, options);
  }
}

/** Bad options given to a constructor or a call. */
export class ConfigurationError extends TroupeError {
  constructor(message: string, options?: TroupeErrorOptions) {
    super('CONFIGURATION', message, options);
  }
}

/** Which run limit was hit; also the `stopReason` of a run that ended with status `'limit'`. */
export type RunLimit = 'maxLlmCalls' | 'maxTransfers' | 'maxTokens' | 'timeout' | 'maxSteps';

/** A run hit one of its {@link RunConfig} limits. The session stays valid. */
export class RunLimitError extends TroupeError {
  constructor(
    readonly limit: RunLimit,
    message: string,
  ) {
    super('RUN_LIMIT', message);
  }
}

/** More agent transfers happened in one run than `runConfig.maxTransfers` allows. */
export class TransferLimitError extends RunLimitError {
  constructor(message: string) {
    super('maxTransfers', message);
  }
}

/** A second invocation was started on a session that is already running one. */
export class SessionBusyError extends TroupeError {
  /** The busy session, when known. */
  readonly session: SessionKey | undefined;
  /**
   * How long until the session frees at the latest, when that is known: the lease of a process that
   * stopped expires by then. Undefined when it frees as soon as the run holding it ends.
   */
  readonly retryAfterMs: number | undefined;

  constructor(message: string, options?: SessionErrorOptions & { retryAfterMs?: number }) {
    super('SESSION_BUSY', message, options);
    this.session = options?.session;
    this.retryAfterMs = options?.retryAfterMs;
  }
}

/** An event was appended with a session object older than the stored one. */
export class StaleSessionError extends TroupeError {
  constructor(message: string) {
    super('STALE_SESSION', message);
  }
}

/** `createSession` was given a session id the store already holds for that app and user. Nothing was stored. */
export class SessionExistsError extends TroupeError {
  constructor(message: string) {
    super('SESSION_EXISTS', message);
  }
}

/** A session was asked for that does not exist. */
export class SessionNotFoundError extends TroupeError {
  /** The missing session, when known. */
  readonly session: SessionKey | undefined;

  constructor(message: string, options?: SessionErrorOptions) {
    super('SESSION_NOT_FOUND', message, options);
    this.session = options?.session;
  }
}

/**
 * A session store was written by a newer release: its schema version, or the format of a stored
 * value, is one this code does not know. Nothing is changed; upgrade the package.
 */
export class SchemaVersionError extends TroupeError {
  constructor(
    message: string,
    /** The version found in the store. */
    readonly found: number,
    /** The newest version this code knows. */
    readonly supported: number,
  ) {
    super('SCHEMA_VERSION', message);
  }
}

/** A new message was sent to a session that still has unanswered interrupts. */
export class PendingInterruptError extends TroupeError {
  /** The session, when known. */
  readonly session: SessionKey | undefined;

  constructor(
    message: string,
    readonly interruptIds: readonly string[],
    options?: SessionErrorOptions,
  ) {
    super('PENDING_INTERRUPT', message, options);
    this.session = options?.session;
  }
}

/**
 * A resume answered an interrupt that was answered already (a second click, a retried request).
 * Nothing was stored: the first answer stands.
 */
export class InterruptAnsweredError extends TroupeError {
  /** The session, when known. */
  readonly session: SessionKey | undefined;

  constructor(
    message: string,
    /** The interrupt answered twice. */
    readonly interruptId: string,
    /** The invocation it belongs to. */
    readonly invocationId: string,
    options?: SessionErrorOptions,
  ) {
    super('INTERRUPT_ANSWERED', message, options);
    this.session = options?.session;
  }
}

/** A model call failed. `status` is the provider's HTTP status when there was one. */
export class ModelError extends TroupeError {
  readonly status: number | undefined;
  readonly provider: string | undefined;

  constructor(message: string, options?: { status?: number; provider?: string; cause?: unknown }) {
    super('MODEL', message, options);
    this.status = options?.status;
    this.provider = options?.provider;
  }
}

/** The run was cancelled through its abort signal. */
export class RunCancelledError extends TroupeError {
  constructor(message = 'The run was cancelled through its abort signal.', options?: { cause?: unknown }) {
    super('CANCELLED', message, options);
  }
}

/** A state key that could pollute object prototypes, or another unusable key, was written. */
export class InvalidStateKeyError extends TroupeError {
  constructor(message: string) {
    super('INVALID_STATE_KEY', message);
  }
}

/** What a guardrail checked: an agent's input or output, or a tool call's arguments. */
export type GuardrailKind = 'input' | 'output' | 'tool';

/**
 * A guardrail's tripwire fired. The run ends with status `'blocked'`: the checked input is not acted
 * on, the checked output is not stored, the checked tool call does not run, and nothing runs after.
 */
export class GuardrailTrippedError extends TroupeError {
  constructor(
    message: string,
    /** The guardrail's `name`. */
    readonly guardrail: string,
    /** What it checked. */
    readonly kind: GuardrailKind,
    /** The agent whose input, output or tool call was checked. */
    readonly agent: string,
    /** The `info` the guardrail returned with its tripwire. */
    readonly info: unknown,
    /** The tool, for a tool guardrail. */
    readonly tool?: string,
  ) {
    super('GUARDRAIL_TRIPPED', message);
  }
}

/** A guardrail's `check` threw or returned something other than `{ tripwire: boolean }`. The run fails. */
export class GuardrailError extends TroupeError {
  constructor(
    message: string,
    /** The guardrail's `name`. */
    readonly guardrail: string,
    options?: { cause?: unknown },
  ) {
    super('GUARDRAIL_ERROR', message, options);
  }
}

/** A run was given an `invocationId` the session already holds. Nothing was stored. */
export class InvocationExistsError extends TroupeError {
  /** The session, when known. */
  readonly session: SessionKey | undefined;
  /** The invocation id that is taken, when known. */
  readonly invocationId: string | undefined;

  constructor(message: string, options?: SessionErrorOptions & { invocationId?: string }) {
    super('INVOCATION_EXISTS', message, options);
    this.session = options?.session;
    this.invocationId = options?.invocationId;
  }
}

/**
 * This process's lease on a session expired and another owner took it over: whatever this process
 * was about to store is refused (nothing is stored), and its run ends.
 */
export class LeaseLostError extends TroupeError {
  constructor(message: string) {
    super('LEASE_LOST', message);
  }
}

/**
 * Abort reason for a graceful shutdown (a worker draining): the run stops at the next safe point
 * without storing a terminal event, so another process can resume the invocation.
 */
export class RunDrainedError extends TroupeError {
  constructor(message = 'The run was stopped because its process is shutting down; resume it with its invocationId.') {
    super('RUN_DRAINED', message);
  }
}

/**
 * The session store could not do what was asked: its connection dropped, its file is read-only, its
 * disk is full. The operation did not happen (nothing half-stored); it may succeed once the store is
 * back. Servers answer it with 503.
 */
export class StorageError extends TroupeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('STORAGE', message, options);
  }
}

/** An artifact bigger than its store's `maxArtifactBytes`. Nothing was stored. */
export class ArtifactTooLargeError extends TroupeError {
  constructor(
    message: string,
    /** The artifact's filename. */
    readonly filename: string,
    /** Its size in bytes (decoded bytes of `inlineData`, UTF-8 bytes of text). */
    readonly size: number,
    /** The store's limit in bytes. */
    readonly limit: number,
  ) {
    super('ARTIFACT_TOO_LARGE', message);
  }
}

/** An artifact filename or part a store cannot take (empty or overlong name, NUL, a function call part...). */
export class InvalidArtifactError extends TroupeError {
  constructor(message: string) {
    super('INVALID_ARTIFACT', message);
  }
}

/** `runner.rewind` to an invocation the session does not hold. Nothing was changed. */
export class InvocationNotFoundError extends TroupeError {
  constructor(message: string) {
    super('INVOCATION_NOT_FOUND', message);
  }
}

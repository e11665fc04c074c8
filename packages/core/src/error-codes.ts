/**
 * The closed list of error codes Troupe uses, each with the class that carries it. A
 * {@link TroupeError}'s `code` is one of these (the compiler checks every `new TroupeError(code)`),
 * and so is the `errorCode` Troupe stores on a failed run's event. docs/errors.md explains each:
 * what happened, who is at fault and the fix.
 *
 * The class is the name of the error class thrown with that code, in the package that throws it:
 * `HttpError` for codes only the HTTP server answers with, `TroupeError` for codes thrown with the
 * base class, and `null` for codes only ever recorded (on a stored event, a run record or an A2A
 * task), never thrown.
 */
export const ERROR_CODES = {
  // @troupe/core: user configuration
  AGENT_TREE: 'AgentTreeError',
  TEMPLATE: 'TemplateError',
  CONFIGURATION: 'ConfigurationError',
  AGENT_DEFINITION: 'AgentDefinitionError',
  INPUT_VALIDATION: 'InputValidationError',
  INVALID_STATE_KEY: 'InvalidStateKeyError',
  INVALID_ARTIFACT: 'InvalidArtifactError',
  ARTIFACT_TOO_LARGE: 'ArtifactTooLargeError',
  INTERRUPT_RESPONSE: 'InterruptResponseError',
  PENDING_INTERRUPT: 'PendingInterruptError',
  INTERRUPT_ANSWERED: 'InterruptAnsweredError',
  SESSION_BUSY: 'SessionBusyError',
  SESSION_EXISTS: 'SessionExistsError',
  SESSION_NOT_FOUND: 'SessionNotFoundError',
  INVOCATION_EXISTS: 'InvocationExistsError',
  INVOCATION_NOT_FOUND: 'InvocationNotFoundError',
  // @troupe/core: model behaviour
  MODEL: 'ModelError',
  ROUTING: 'RoutingError',
  REFLECTION: 'ReflectionError',
  OUTPUT_VALIDATION: 'OutputValidationError',
  TRANSFER_TARGET: 'TransferTargetError',
  PLAN_INVALID: 'PlanValidationError',
  GROUP_CHAT_SELECTOR: 'GroupChatSelectorError',
  COMPACTION_FAILED: 'TroupeError',
  EMBEDDING_FAILED: 'EmbeddingError',
  // @troupe/core: graph workflows
  NODE_SCHEMA: 'NodeSchemaValidationError',
  STATE_SCHEMA: 'StateSchemaError',
  WORKFLOW_OUTPUT: 'WorkflowOutputError',
  NODE_FAILED: 'NodeFailedError',
  NODE_TIMEOUT: 'NodeTimeoutError',
  // @troupe/core: tools and guardrails
  TOOL_ARGUMENTS: 'ToolArgumentsError',
  GUARDRAIL_TRIPPED: 'GuardrailTrippedError',
  GUARDRAIL_ERROR: 'GuardrailError',
  // @troupe/core: storage
  STORAGE: 'StorageError',
  STALE_SESSION: 'StaleSessionError',
  LEASE_LOST: 'LeaseLostError',
  SCHEMA_VERSION: 'SchemaVersionError',
  // @troupe/core: how a run ended
  RUN_LIMIT: 'RunLimitError',
  CANCELLED: 'RunCancelledError',
  RUN_DRAINED: 'RunDrainedError',
  ERROR: 'TroupeError',
  // @troupe/core/testing
  SCRIPT_EXHAUSTED: 'TroupeError',
  SCRIPT_UNUSED: 'TroupeError',
  // @troupe/cli
  CLI_USAGE: 'CliUsageError',
  AGENT_LOAD: 'AgentLoadError',
  // @troupe/eval
  EVAL_SET: 'EvalSetError',
  EVAL_CONFIG: 'EvalConfigError',
  EVAL_JUDGE: 'JudgeError',
  // @troupe/mcp
  MCP_CONNECTION: 'MCPConnectionError',
  MCP_TOOL: 'MCPToolError',
  // @troupe/queue
  RUN_NOT_FOUND: 'RunNotFoundError',
  QUEUE_UNAVAILABLE: 'QueueUnavailableError',
  RUN_ABANDONED: null,
  // @troupe/a2a
  A2A_CARD: 'RemoteA2aError',
  A2A_REQUEST: 'RemoteA2aError',
  A2A_TIMEOUT: 'RemoteA2aError',
  A2A_TASK_FAILED: 'RemoteA2aError',
  A2A_TASK_REJECTED: 'RemoteA2aError',
  A2A_TASK_CANCELED: 'RemoteA2aError',
  A2A_AUTH_REQUIRED: 'RemoteA2aError',
  A2A_ANSWER_REFUSED: 'RemoteA2aError',
  A2A_TASK_LOST: 'RemoteA2aError',
  INVALID_AGENT_RESPONSE: null,
  // @troupe/server: HTTP only
  INVALID_REQUEST: 'HttpError',
  INVALID_JSON: 'HttpError',
  PAYLOAD_TOO_LARGE: 'HttpError',
  REQUEST_ABORTED: 'HttpError',
  LIMIT_EXCEEDED: 'HttpError',
  RESERVED_KEY: 'HttpError',
  STATE_KEY_FORBIDDEN: 'HttpError',
  STATE_TOO_LARGE: 'HttpError',
  UNAUTHORIZED: 'HttpError',
  FORBIDDEN: 'HttpError',
  ORIGIN_NOT_ALLOWED: 'HttpError',
  HOST_NOT_ALLOWED: 'HttpError',
  NOT_FOUND: 'HttpError',
  APP_NOT_FOUND: 'HttpError',
  ARTIFACT_NOT_FOUND: 'HttpError',
  NO_RUN: 'HttpError',
  SCHEDULE_EXISTS: 'HttpError',
  SCHEDULE_NOT_FOUND: 'HttpError',
  CANCEL_PENDING: 'HttpError',
  SERVER_CLOSING: 'HttpError',
  RUN_OUTCOME_UNKNOWN: 'HttpError',
  AGENTS_DIR: 'HttpError',
  INTERNAL: 'HttpError',
} as const satisfies Readonly<Record<string, string | null>>;

/** One of Troupe's error codes: the `code` of every {@link TroupeError}. See {@link ERROR_CODES}. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** True when `value` is one of Troupe's error codes (e.g. an `errorCode` read back from a stored event). */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}

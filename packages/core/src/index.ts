/**
 * Troupe core: agents, the runner, events, sessions, tools and the model interface.
 * @packageDocumentation
 */
export * from './errors.js';
// Store authors: @troupe/core/stores. Servers, queues and protocol adapters: @troupe/core/hosting.
export { ERROR_CODES, isErrorCode, type ErrorCode } from './error-codes.js';
export {
  type Content,
  type Part,
  type TextPart,
  type FunctionCall,
  type FunctionCallPart,
  type FunctionResponse,
  type FunctionResponsePart,
  type InlineDataPart,
  userContent,
  modelText,
  contentText,
} from './events/content.js';
export {
  type Event,
  type EventActions,
  type EventInit,
  type CustomEventInfo,
  type InterruptInfo,
  type NodeInfo,
  type Route,
  type RouteKey,
  type RouteAction,
  type Usage,
  createEvent,
  getFunctionCalls,
  getFunctionResponses,
  isFinalResponse,
  textOf,
} from './events/event.js';
export type {
  Session,
  SessionService,
  CreateSessionParams,
  GetSessionParams,
  SessionKey,
  AppendEventParams,
} from './sessions/session.js';
export { InMemorySessionService, type InMemorySessionServiceOptions } from './sessions/in-memory-session-service.js';
export type { EvictionReason, SessionBound } from './sessions/session-eviction.js';
export { State } from './sessions/state.js';
export { APP_PREFIX, USER_PREFIX, TEMP_PREFIX } from './sessions/state-keys.js';
export { BaseAgent, type BaseAgentOptions, type AgentCallback } from './agents/base-agent.js';
export type { AgentKind, AgentOutline } from './agents/agent-outline.js';
export { InvocationContext } from './agents/invocation-context.js';
export type {
  SequentialProgress,
  LoopProgress,
  ParallelProgress,
  TeamProgress,
  InvocationStart,
  ResumeAnswers,
} from './agents/progress.js';
export { describeProgress, type ProgressKind, type ProgressWords } from './agents/progress-words.js';
export { CallbackContext, type MutableActions } from './agents/callback-context.js';
export { FunctionAgent, type FunctionAgentOptions } from './agents/function-agent.js';
export { LlmAgent, Agent, type LlmAgentOptions, type Instruction } from './agents/llm-agent.js';
export type { IncludeContents } from './agents/llm/history.js';
export type { BeforeModelCallback, AfterModelCallback } from './agents/llm/model-call.js';
export type { BeforeToolCallback, AfterToolCallback } from './agents/llm/tool-execution.js';
export { SequentialAgent, type SequentialAgentOptions } from './agents/sequential-agent.js';
export { ParallelAgent, type ParallelAgentOptions } from './agents/parallel-agent.js';
export { LoopAgent, type LoopAgentOptions, type LoopStopReason } from './agents/loop-agent.js';
export { TeamAgent, type TeamAgentOptions, type ReflectionOptions } from './agents/team/team-agent.js';
export { RoutedAgent, type RoutedAgentOptions, type AgentRouter } from './agents/routed-agent.js';
// Graph workflows (SPEC §17)
export * from './workflow/index.js';
export { RoutedLlm, type RoutedLlmOptions, type LlmRouter } from './models/routed-llm.js';
export {
  checkContextCache,
  type ContextCache,
  type ContextCacheOptions,
  type ContextCacheTtl,
  type RequestCache,
} from './models/context-cache.js';
export type { RoutingErrorContext } from './utils/routing.js';
export { BaseTool, type BaseToolOptions } from './tools/base-tool.js';
export { BaseToolset } from './tools/base-toolset.js';
export { ToolContext, type ToolConfirmation } from './tools/tool-context.js';
export { FunctionTool, ToolArgumentsError, type FunctionToolOptions } from './tools/function-tool.js';
export { AgentTool, type AgentToolOptions } from './tools/agent-tool.js';
export { ClientTool, isClientToolInterrupt } from './tools/client-tool.js';
export { exitLoop } from './tools/exit-loop.js';
export { BaseLlm } from './models/base-llm.js';
export type {
  FailedModelAttempt,
  LlmRequest,
  LlmResponse,
  LlmRequestConfig,
  FunctionDeclaration,
  GenerateContentConfig,
} from './models/llm-request.js';
export { registerModel, resolveModel, type ModelFactory } from './models/registry.js';
export { OfflineModel } from './models/offline-model.js';
export { Runner, InMemoryRunner, type RunnerOptions, type RunParams, type ResumeParams } from './runner/runner.js';
export { InterruptResponseError } from './interrupts/open-interrupts.js';
export type { RunConfig } from './runner/run-config.js';
export type { RunResult, RunStatus, UsageSums, UsageTotals } from './runner/run-result.js';
export { BasePlugin, type AgentOutcome } from './runner/base-plugin.js';
export type { Schema, JsonSchema, Infer } from './utils/schema.js';
export { describeSchemaShape, takesTextMessage } from './utils/schema-shape.js';
export { withRetry, type RetryOptions } from './models/retry.js';
export { loadAgent, AgentDefinitionError, type LoadAgentOptions } from './definitions/load-agent.js';
export { registerToolEntry, type ToolEntryFactory, type ToolEntryContext } from './definitions/tool-entries.js';
// Artifacts (SPEC §15)
export type {
  ArtifactService,
  ArtifactKey,
  SaveArtifactParams,
  LoadArtifactParams,
  ListArtifactParams,
} from './artifacts/artifact-service.js';
export { USER_ARTIFACT_PREFIX } from './artifacts/artifact-service.js';
export {
  InMemoryArtifactService,
  type InMemoryArtifactServiceOptions,
} from './artifacts/in-memory-artifact-service.js';
export { FileArtifactService, type FileArtifactServiceOptions } from './artifacts/file-artifact-service.js';
export { loadArtifactsTool, LoadArtifactsTool } from './tools/load-artifacts-tool.js';
export { SaveFilesAsArtifactsPlugin } from './artifacts/save-files-as-artifacts-plugin.js';
export { mediaTypeOfFile, extensionOfMediaType } from './artifacts/media-types.js';
// Memory (SPEC §15)
export type {
  MemoryService,
  MemoryEntry,
  MemorySearchMode,
  SearchMemoryParams,
  SearchMemoryResponse,
} from './memory/memory-service.js';
export type { EmbeddingModel, EmbedOptions } from './memory/embedding-model.js';
export { EmbeddingError } from './memory/embedding-error.js';
export { InMemoryMemoryService, type InMemoryMemoryServiceOptions } from './memory/in-memory-memory-service.js';
export { loadMemoryTool, LoadMemoryTool } from './tools/load-memory-tool.js';
export { preloadMemoryTool, PreloadMemoryTool } from './tools/preload-memory-tool.js';
export type { MemorySearchOptions } from './memory/search-memory.js';
export {
  AddSessionToMemoryPlugin,
  type AddSessionToMemoryPluginOptions,
} from './memory/add-session-to-memory-plugin.js';
// Working memory (SPEC §19)
export {
  DEFAULT_WORKING_MEMORY_TEMPLATE,
  workingMemoryStateKey,
  type WorkingMemoryOptions,
  type WorkingMemoryScope,
} from './working-memory/working-memory-options.js';
export { UPDATE_WORKING_MEMORY_TOOL } from './working-memory/working-memory-tool.js';
// Agent Skills (SPEC §19)
export { SkillToolset, type SkillToolsetOptions } from './skills/skill-toolset.js';
export type { AgentSkill } from './skills/agent-skill.js';
// Guardrails (SPEC §15)
export {
  type Guardrail,
  type GuardrailResult,
  type GuardrailInput,
  type InputGuardrail,
  type OutputGuardrail,
  type ToolGuardrail,
} from './guardrails/guardrail.js';
// ADK wire parity (SPEC §15)
export type { UpdateSessionStateParams } from './runner/update-session-state.js';
// Long sessions, compaction and rewind (SPEC §15)
export type { HistoryWindow } from './agents/llm/history.js';
export type { TokenCounter } from './agents/llm/history-window.js';
export type { EventCompaction } from './events/event.js';
export { COMPACTION_FAILED, type CompactionOptions } from './runner/compaction.js';
export type { RewindParams } from './runner/rewind.js';
export { redact, createRedactor, REDACTED, type Redactor, type RedactorOptions } from './utils/redact.js';
// Code execution (SPEC §19)
export type {
  CodeExecutor,
  CodeExecutionRequest,
  CodeExecutionResult,
  CodeFile,
  WrittenFile,
  CodeLanguage,
} from './code-execution/code-executor.js';
export {
  runCodeWithApproval,
  type RunCodeWithApprovalOptions,
  type CodeRunRequest,
  type CodeRunResponse,
  type CodeApprovalPayload,
} from './code-execution/run-code-with-approval.js';
export type { ReportedFile } from './code-execution/save-written-files.js';
export { LocalProcessExecutor, type LocalProcessExecutorOptions } from './code-execution/local-process-executor.js';
export type { CodeExecutorOptions } from './code-execution/executor-options.js';
export {
  ContainerExecutor,
  type ContainerExecutorOptions,
  type DockerStatus,
} from './code-execution/container-executor.js';
export { dockerArgs, type DockerRunSpec } from './code-execution/docker-args.js';
export {
  codeExecutionTool,
  CodeExecutionTool,
  type CodeExecutionToolOptions,
} from './code-execution/code-execution-tool.js';

/**
 * Troupe's HTTP API: the routes of ADK's API server (so ADK clients work), server-sent events,
 * interrupt resume, the agent graph, AG-UI for AG-UI front ends, and the static assets of the dev UI.
 * @packageDocumentation
 */
export { createApp } from './create-app.js';
export type {
  BackgroundJoinOptions,
  BackgroundResumeParams,
  BackgroundRunInfo,
  BackgroundRunParams,
  BackgroundRuns,
  BackgroundScheduleInfo,
  BackgroundScheduleParams,
  BackgroundStreamEntry,
  MultitaskStrategy,
} from './background-runs.js';
export { DEFAULT_BODY_LIMIT, DEFAULT_HEALTH_CHECK_TIMEOUT_MS, type CreateAppOptions } from './create-app-options.js';
export type { ErrorListener, ErrorReport } from './error-response.js';
export { DEFAULT_JSON_LIMITS, type JsonLimits } from './json-limits.js';
export { DEFAULT_STATE_LIMITS, type StateLimits } from './state-policy.js';
export { REQUEST_ID_HEADER } from './request-id.js';
export type { HealthBody } from './routes/health.js';
export { serve, type ServeOptions, type ServerHandle } from './serve.js';
export { isLoopback } from './loopback.js';
export { allowedHostProblem } from './host-check.js';
export { allowedOriginProblem } from './origin-check.js';
export { ADMIN, type AuthOptions } from './auth.js';
export { AG_UI_USER } from './ag-ui/thread.js';
export { uiMessageStreamOf, type RunEventStream, type UiMessageStreamOptions } from './ai-sdk/ui-message-stream.js';
export type {
  TroupePartMetadata,
  UiDataChunk,
  UiFinishReason,
  UiMessageChunk,
  UiMessageFinishChunk,
  UiMessageStartChunk,
  UiToolApprovalRequestChunk,
} from './ai-sdk/ui-message-chunk.js';
export { OPENAI_USER } from './openai/chat-session.js';
export {
  AGENT_ENTRY_FILES,
  discoverApps,
  findAppEntry,
  type DiscoveredApp,
  type DiscoveryOptions,
  type ImportModule,
} from './discover-apps.js';
export {
  agentGraph,
  type AgentGraphNode,
  type AgentGraphTool,
  type AgentKind,
  type WorkflowNodeKind,
  type WorkflowOutline,
  type WorkflowOutlineEdge,
  type WorkflowOutlineNode,
} from './graph.js';
export { HttpError, type ErrorBody, type ErrorStatus } from './http-error.js';
export type { ServerEnv, TroupeApp } from './server-context.js';
export { contentTypeOf } from './static-files.js';
export {
  encodeEvent,
  encodeRunInfo,
  encodeSession,
  msToSeconds,
  secondsToMs,
  sseFrame,
  type WireEvent,
  type WireSession,
} from './wire.js';

/**
 * The wire vocabulary the UI renders: the server's own types (one event model, no second one for
 * the UI). Type-only imports: nothing of the server is bundled.
 */
export type {
  AgentGraphNode,
  AgentGraphTool,
  ErrorBody,
  WireEvent,
  WireSession,
  WorkflowOutline,
} from '@troupe/server';
// Shapes of the dev UI's own routes, not part of @troupe/server's public API.
export type { SessionSummary, WireTraceSpan } from '../../src/dev-ui-wire.js';
export type { EvalCaseResult, EvalReport, MetricResult } from '@troupe/eval';
export type { Content, InterruptInfo, Part } from '@troupe/core';

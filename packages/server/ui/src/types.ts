/**
 * The wire vocabulary the UI renders: the server's own types (one event model, no second one for
 * the UI). Type-only imports: nothing of the server is bundled.
 */
import type { AgentGraphNode as ServerGraphNode, AgentGraphTool as ServerGraphTool } from '@troupe/server';
export type { ErrorBody, WireEvent, WireSession } from '@troupe/server';

/** A graph workflow's nodes and edges, as `GET /apps/{app}/graph` gives them on a workflow agent. */
export interface WorkflowOutline {
  nodes: {
    name: string;
    kind: 'function' | 'agent' | 'tool' | 'join' | 'node';
    agent?: string;
    parallelWorker?: true;
    description: string;
  }[];
  edges: { from: string; to: string; routes?: string[]; default?: true; maxIterations?: number }[];
}

export type AgentGraphNode = Omit<ServerGraphNode, 'children' | 'tools'> & {
  children: AgentGraphNode[];
  tools: AgentGraphTool[];
  workflow?: WorkflowOutline;
};
export type AgentGraphTool = Omit<ServerGraphTool, 'agent'> & { agent?: AgentGraphNode };
// Shapes of the dev UI's own routes, not part of @troupe/server's public API.
export type { SessionSummary, WireTraceSpan } from '../../src/dev-ui-wire.js';
export type { EvalCaseResult, EvalReport, MetricResult } from '@troupe/eval';
export type { Content, InterruptInfo, Part } from '@troupe/core';

/**
 * Graph workflows (ADK 2.0's `Workflow`): nodes joined by edges, routes and back-edges, durable at
 * every node. Re-exported from `@troupe/core`.
 * @packageDocumentation
 */
export { Workflow, WorkflowAgent, isWorkflow, type WorkflowConfig, type DynamicEntry } from './workflow.js';
export { BaseNode, isBaseNode, type BaseNodeConfig, type NodeYield } from './base-node.js';
export { node, type NodeLike, type NodeOptions } from './node.js';
export {
  FunctionNode,
  type FunctionNodeConfig,
  type FunctionNodeHandler,
  type FunctionNodeResult,
} from './function-node.js';
export { JoinNode } from './join-node.js';
export { AgentNode } from './agent-node.js';
export { ToolNode } from './tool-node.js';
export { NodeContext, type NodeResult, type RunNodeOptions } from './node-context.js';
export {
  DEFAULT_ROUTE,
  START,
  WorkflowGraph,
  type Edge as WorkflowEdge,
  type EdgeItem,
  type EdgeSpec,
  type ChainElement,
  type RoutingMap,
} from './graph.js';
export {
  RequestInput,
  isRequestInput,
  REQUEST_INPUT_FUNCTION_CALL_NAME,
  type RequestInputParams,
} from './request-input.js';
export type { RetryConfig, ErrorClass } from './retry-config.js';
export {
  NodeSchemaValidationError,
  StateSchemaError,
  WorkflowOutputError,
  NodeTimeoutError,
  NodeFailedError,
} from './errors.js';

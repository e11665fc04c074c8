/**
 * The wire vocabulary the UI renders: the server's own types (one event model, no second one for
 * the UI). Type-only imports: nothing of the server is bundled.
 */
export type { AgentGraphNode, AgentGraphTool, ErrorBody, WireEvent, WireSession } from '@troupe/server';
export type { InterruptInfo, Part } from '@troupe/core';

import type { Tool } from '@ag-ui/core';
import { type FunctionDeclaration, type InterruptInfo, isClientToolInterrupt } from '@troupe/core';

/**
 * The input's frontend tools as the run's client tools (`runConfig.clientTools`), which every
 * LlmAgent of the run is offered. A client tool call the thread is paused on is answered where it
 * was made, so its tool is offered again even when the client no longer lists it.
 */
export function clientToolDeclarations(tools: readonly Tool[], open: readonly InterruptInfo[]): FunctionDeclaration[] {
  const declarations: FunctionDeclaration[] = tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    ...(isSchemaObject(tool.parameters) ? { parameters: tool.parameters } : {}),
  }));
  for (const interrupt of open) {
    if (isClientToolInterrupt(interrupt) && !declarations.some((d) => d.name === interrupt.toolName)) {
      declarations.push({ name: interrupt.toolName, description: `The client's tool '${interrupt.toolName}'.` });
    }
  }
  return declarations;
}

function isSchemaObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

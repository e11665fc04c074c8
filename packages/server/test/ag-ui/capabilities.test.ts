import { AgentCapabilitiesSchema } from '@ag-ui/core/schemas';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AgentTool, FunctionTool, LlmAgent } from '@troupe/core';
import { ScriptedModel } from '@troupe/core/testing';
import { serveApps } from './helpers.js';

describe('AG-UI: GET /ag-ui/{app}/capabilities', () => {
  it("declares streaming, state deltas, interrupts and multi-agent support, with the root agent's tools and sub-agents", async () => {
    const model = new ScriptedModel([]);
    const helper = new LlmAgent({ name: 'Researcher', description: 'Finds facts.', model });
    const billing = new LlmAgent({ name: 'Billing', description: 'Handles invoices.', model });
    const lookup = new FunctionTool({
      name: 'lookup',
      description: 'Looks an order up.',
      parameters: z.object({ id: z.string() }),
      execute: () => ({}),
    });
    const root = new LlmAgent({
      name: 'Desk',
      description: 'The help desk.',
      model,
      tools: [lookup, new AgentTool({ agent: helper })],
      subAgents: [billing],
    });
    const served = await serveApps({ desk: root }, { auth: { tokens: { secret: 'alice' } } });

    expect((await fetch(`${served.url}/ag-ui/desk/capabilities`)).status).toBe(401);
    const res = await fetch(`${served.url}/ag-ui/desk/capabilities`, { headers: { Authorization: 'Bearer secret' } });
    expect(res.status).toBe(200);
    const body: unknown = await res.json();
    const capabilities = AgentCapabilitiesSchema.strict().parse(body);
    expect(capabilities).toMatchObject({
      identity: { name: 'desk', type: 'troupe', description: 'The help desk.' },
      transport: { streaming: true },
      tools: { supported: true, clientProvided: true, parallelCalls: true },
      state: { snapshots: true, deltas: true, persistentState: true },
      multiAgent: {
        supported: true,
        delegation: true,
        handoffs: true,
        subagents: [
          { name: 'Billing', description: 'Handles invoices.' },
          { name: 'Researcher', description: 'Finds facts.' },
        ],
      },
      humanInTheLoop: { supported: true, approvals: true, interrupts: true },
    });
    expect(capabilities.tools!.items!.map((tool) => tool.name)).toEqual(['lookup', 'Researcher']);
    expect(capabilities.tools!.items![0]!.parameters).toMatchObject({
      type: 'object',
      properties: { id: { type: 'string' } },
    });

    const unknown = await fetch(`${served.url}/ag-ui/nope/capabilities`, {
      headers: { Authorization: 'Bearer secret' },
    });
    expect(unknown.status).toBe(404);
  });
});

import { AgentTool } from '../tools/agent-tool.js';
import type { BaseNode } from './base-node.js';
import { Workflow } from './workflow.js';

/**
 * A node as an LlmAgent's tool (ADK's `NodeTool`): the model calls it with the node's
 * `inputSchema` as parameters (or `{ request }`), and gets the node's output. Made when a node is
 * put in `LlmAgent.tools`. The node runs as a one-node workflow, durable like any: a node that asks
 * for input pauses the agent's turn, and the answer resumes it.
 */
export function nodeTool(node: BaseNode): AgentTool {
  const workflow = new Workflow({
    name: node.name,
    description: node.description,
    edges: [['START', node]],
    ...(node.inputSchema !== undefined ? { inputSchema: node.inputSchema } : {}),
  });
  return new AgentTool({ agent: workflow });
}

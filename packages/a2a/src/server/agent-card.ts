import type { AgentCard, AgentInterface, AgentSkill } from '@a2a-js/sdk';
import { AgentTool, type BaseAgent } from '@troupe/core';
import type { ResolvedA2aOptions } from './a2a-app-options.js';

/** Media types the agent takes and gives: text, JSON (data parts) and inline files. */
const MODES = ['text/plain', 'application/json'];

/**
 * The agent card of a tree: the root's name and description, one skill for the root, one per
 * agent below it, and one per tool of each agent (as each agent's `outline()` lists them); streaming on; the JSON-RPC endpoint at
 * `baseUrl`, for A2A 1.0 and 0.3 clients (ADK JS peers speak 0.3).
 */
export function agentCardOf(rootAgent: BaseAgent, options: ResolvedA2aOptions): AgentCard {
  const endpoint = (protocolVersion: string): AgentInterface => ({
    url: options.baseUrl,
    protocolBinding: 'JSONRPC',
    tenant: '',
    protocolVersion,
  });
  const bearer = options.auth !== undefined;
  return {
    name: rootAgent.name,
    description: rootAgent.description || `The Troupe agent ${rootAgent.name}.`,
    supportedInterfaces: [endpoint('1.0'), endpoint('0.3')],
    provider: options.provider,
    version: options.version,
    documentationUrl: options.documentationUrl,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: bearer
      ? {
          bearer: {
            scheme: {
              $case: 'httpAuthSecurityScheme',
              value: { description: 'A token the server was configured with.', scheme: 'Bearer', bearerFormat: '' },
            },
          },
        }
      : {},
    securityRequirements: bearer ? [{ schemes: { bearer: { list: [] } } }] : [],
    defaultInputModes: MODES,
    defaultOutputModes: MODES,
    skills: skillsOf(rootAgent),
    signatures: [],
  };
}

/** A skill for the root, for each agent below it (sub-agents and AgentTools' agents), and for each tool. */
export function skillsOf(rootAgent: BaseAgent): AgentSkill[] {
  const skills: AgentSkill[] = [];
  const seen = new Set<BaseAgent>();
  const visit = (agent: BaseAgent, role: 'root' | 'sub-agent') => {
    if (seen.has(agent)) return;
    seen.add(agent);
    skills.push(
      skill(
        agent.name,
        agent.name,
        agent.description || `${role === 'root' ? 'The agent' : 'Sub-agent'} ${agent.name}.`,
        [role, agent.constructor.name, agent.kind],
      ),
    );
    const outline = agent.outline();
    for (const tool of outline.tools) {
      skills.push(
        skill(`${agent.name}.${tool.name}`, tool.name, tool.description || `Tool ${tool.name} of ${agent.name}.`, [
          'tool',
          agent.name,
        ]),
      );
      if (tool instanceof AgentTool) visit(tool.agent, 'sub-agent');
    }
    for (const child of outline.children) visit(child, 'sub-agent');
  };
  visit(rootAgent, 'root');
  return skills;
}

function skill(id: string, name: string, description: string, tags: string[]): AgentSkill {
  return { id, name, description, tags, examples: [], inputModes: [], outputModes: [], securityRequirements: [] };
}

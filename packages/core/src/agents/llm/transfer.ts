import type { Event } from '../../events/event.js';
import { TransferTargetError } from '../../errors.js';
import type { FunctionDeclaration } from '../../models/llm-request.js';
import { BaseTool } from '../../tools/base-tool.js';
import type { ToolContext } from '../../tools/tool-context.js';
import type { BaseAgent } from '../base-agent.js';

/** The name of the built-in tool an LlmAgent uses to hand the conversation to another agent. */
export const TRANSFER_TOOL_NAME = 'transfer_to_agent';

/** The transfer-related options of an LlmAgent. */
export interface TransferPolicy {
  readonly disallowTransferToParent: boolean;
  readonly disallowTransferToPeers: boolean;
}

/** Marks agents that take part in LLM-driven transfer (LlmAgent); set by LlmAgent. */
export const transferCapable = new WeakMap<BaseAgent, TransferPolicy>();

/**
 * Where `agent` may transfer to: its sub-agents; its parent unless disallowed; its peers unless
 * disallowed. Parent and peers count only when the parent is itself an LlmAgent (a workflow
 * parent decides the order, not the model).
 */
export function transferTargets(agent: BaseAgent, policy: TransferPolicy): BaseAgent[] {
  const targets = [...agent.subAgents];
  const parent = agent.parentAgent;
  if (!parent || !transferCapable.has(parent)) return targets;
  if (!policy.disallowTransferToParent) targets.push(parent);
  if (!policy.disallowTransferToPeers) for (const peer of parent.subAgents) if (peer !== agent) targets.push(peer);
  return targets;
}

/** The `transfer_to_agent` tool for one agent's targets: the model names the agent to hand over to. */
export class TransferTool extends BaseTool {
  private readonly names: string[];

  constructor(
    private readonly agent: BaseAgent,
    private readonly targets: readonly BaseAgent[],
  ) {
    super({
      name: TRANSFER_TOOL_NAME,
      description:
        'Transfer the conversation to another agent that is better suited to answer it. ' +
        targets.map((t) => `'${t.name}'${t.description ? `: ${t.description}` : ''}`).join('; '),
    });
    this.names = targets.map((t) => t.name);
  }

  private declaration: FunctionDeclaration | undefined;

  async getDeclaration(): Promise<FunctionDeclaration> {
    return (this.declaration ??= {
      name: this.name,
      description: this.description,
      parameters: {
        type: 'object',
        properties: {
          agent_name: { type: 'string', enum: this.names, description: 'The name of the agent to transfer to.' },
        },
        required: ['agent_name'],
      },
    });
  }

  async runAsync(args: Record<string, unknown>, ctx: ToolContext): Promise<unknown> {
    const name = args.agent_name;
    if (typeof name !== 'string' || !this.names.includes(name)) {
      throw new TransferTargetError(
        `Agent '${this.agent.name}' cannot transfer to ${JSON.stringify(name)}: it is not a known or allowed target. Allowed targets: ${this.names.join(', ')}.`,
      );
    }
    ctx.actions.transferToAgent = name;
    return { transferred_to: name };
  }
}

/** The system-instruction paragraph that tells the model about its transfer targets. */
export function transferInstruction(agent: BaseAgent, targets: readonly BaseAgent[]): string {
  // The same targets (an agent's cached toolbox) give the same text: made once, not per model call.
  const known = instructions.get(targets);
  if (known?.agent === agent) return known.text;
  const text = writeTransferInstruction(agent, targets);
  instructions.set(targets, { agent, text });
  return text;
}

const instructions = new WeakMap<readonly BaseAgent[], { agent: BaseAgent; text: string }>();

function writeTransferInstruction(agent: BaseAgent, targets: readonly BaseAgent[]): string {
  const lines = targets.map((t) => `- ${t.name}${t.description ? `: ${t.description}` : ''}`);
  let text =
    `You are agent '${agent.name}'. You can hand the conversation to one of these agents:\n${lines.join('\n')}\n` +
    `If you are the best agent to answer, answer yourself. If another agent is better suited according to its description, ` +
    `call the '${TRANSFER_TOOL_NAME}' function with its name, and write nothing else.`;
  const parent = agent.parentAgent;
  if (parent && targets.includes(parent)) {
    text += `\nIf none of these agents fits and the request is outside your role, transfer back to your parent agent '${parent.name}'.`;
  }
  return text;
}

/**
 * The agent that takes the next user turn (ADK's rule): walking the session backwards, the first
 * agent that authored an event and can be transferred across the tree (it and every ancestor up
 * to the root are LlmAgents, none with `disallowTransferToParent`); otherwise the root.
 */
export function findAgentToRun(root: BaseAgent, events: readonly Event[]): BaseAgent {
  // A list that only grew since the last call (a session the runner kept between turns) is
  // scanned back only to where that call stopped: the answer then was the latest agent before it.
  const memo = agentMemos.get(events);
  const known =
    memo && memo.root === root && memo.length <= events.length && events[memo.length - 1] === memo.last
      ? memo
      : undefined;
  let found: BaseAgent | undefined;
  let floor = known?.length ?? 0;
  let useKnown = true;
  for (let i = events.length - 1; i >= floor; i--) {
    // A rewind took its invocations back: continue from before them (and past what the memo saw,
    // when the rewound events reach into it).
    const rewoundTo = events[i]!.actions.rewindBeforeInvocationId;
    if (rewoundTo !== undefined) {
      const start = events.findIndex((e) => e.invocationId === rewoundTo);
      if (start >= 0 && start < i) {
        i = start;
        if (start < floor) {
          floor = 0;
          useKnown = false;
        }
      }
      continue;
    }
    const author = events[i]!.author;
    if (author === 'user') continue;
    if (author === root.name) {
      found = root;
      break;
    }
    const agent = root.findSubAgent(author);
    if (agent && isTransferableAcrossTree(agent)) {
      found = agent;
      break;
    }
  }
  if (useKnown) found ??= known?.found;
  agentMemos.set(events, { root, length: events.length, last: events[events.length - 1], found });
  return found ?? root;
}

/** What {@link findAgentToRun} found in the first `length` events of a list (`last` is the last of them). */
interface AgentToRunMemo {
  root: BaseAgent;
  length: number;
  last: Event | undefined;
  found: BaseAgent | undefined;
}

const agentMemos = new WeakMap<readonly Event[], AgentToRunMemo>();

function isTransferableAcrossTree(agent: BaseAgent): boolean {
  for (let current: BaseAgent | undefined = agent; current; current = current.parentAgent) {
    const policy = transferCapable.get(current);
    if (!policy) return false;
    if (current.parentAgent && policy.disallowTransferToParent) return false;
  }
  return true;
}

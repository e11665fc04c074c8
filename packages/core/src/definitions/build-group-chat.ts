import type { AgentPlan, Compiler, Scope } from './agent-plan.js';
import { commonOptions, readAgentList, type DefinitionCommon } from './build-common.js';
import type { MapReader } from './read-values.js';

/** The keys of `type: group_chat` besides type, name and description. */
export const GROUP_CHAT_KEYS = ['participants', 'selector', 'maxTurns', 'terminate'] as const;

/**
 * Reads a `type: group_chat` definition: `participants` (each a path or an inline definition),
 * `selector` (`round_robin` or a model name), `max_turns` and `terminate` (a text). The pattern's
 * module is imported only here, when a definition uses it, so `@troupe/core` stays light.
 */
export async function compileGroupChat(
  compiler: Compiler,
  r: MapReader,
  scope: Scope,
  common: DefinitionCommon,
): Promise<AgentPlan> {
  const { GroupChatAgent } = await import('../patterns/group-chat.js');
  r.require('participants', 'the agents that take turns in the chat', '[./writer.yaml, ./critic.yaml]');
  const selectorName =
    r.word('selector', 'round_robin') ??
    r.fail(
      'selector',
      `'${r.shown('selector')}' is required: 'round_robin' (participants in order) or a model name such as 'gemini-2.5-flash' that picks who speaks next.`,
    );
  const selector = selectorName === 'round_robin' ? 'round_robin' : compiler.ctx.model(selectorName, r.at('selector'));
  const maxTurns = r.integer('maxTurns', 1, 10);
  const terminate = r.string('terminate', 'APPROVED');
  if (terminate === '')
    r.fail(
      'terminate',
      `'${r.shown('terminate')}' is empty; write the text that ends the chat when a participant says it, e.g. 'APPROVED', or remove the key.`,
    );
  const participants = await readAgentList(compiler, r, 'participants', scope);
  if (participants.length === 0)
    r.fail('participants', `'${r.shown('participants')}' is empty; a group chat needs at least one participant.`);
  return {
    at: common.at,
    name: common.name,
    children: participants,
    toolAgents: [],
    create: (build) =>
      new GroupChatAgent({
        ...commonOptions(common),
        participants: participants.map(build),
        selector,
        ...(maxTurns === undefined ? {} : { maxTurns }),
        ...(terminate === undefined ? {} : { terminate }),
      }),
  };
}

/**
 * Group chat pattern (GroupChatAgent from `@troupe/core/patterns`).
 *
 * Writer, Critic and Editor share one conversation in the Newsroom: each sees the user's request
 * and everything the others said. A selector picks who speaks next. `rootAgent` takes turns in
 * order (`round_robin`); `newsroomWithSelector(model)` lets a model pick from the participants'
 * names and descriptions. The chat ends after the turn in which someone says `APPROVED`, after 6
 * turns, or (model selector) when the model answers DONE; the final event records
 * `agentState: { stopReason, turns, speakers }`.
 *
 * Try: npx troupe run examples/group-chat --input "A short blurb for a bakery's new rye bread"
 */
import { LlmAgent, type BaseLlm } from '@troupe/core';
import { GroupChatAgent } from '@troupe/core/patterns';

const participants = () => [
  new LlmAgent({
    name: 'Writer',
    description: 'Writes and revises the text.',
    instruction:
      'You are the writer. Write the text the user asks for, or revise your last draft following the critique. Reply with the text only.',
  }),
  new LlmAgent({
    name: 'Critic',
    description: 'Points out what to improve in the latest draft.',
    instruction: 'You are the critic. Name the two most important improvements to the latest draft, briefly.',
  }),
  new LlmAgent({
    name: 'Editor',
    description: 'Decides whether the text is ready and approves it.',
    instruction:
      'You are the editor. If the latest draft is ready to publish, reply with APPROVED and the final text; otherwise say what must change.',
  }),
];

/** The chat with a model picking the next speaker. */
export function newsroomWithSelector(selector: BaseLlm): GroupChatAgent {
  return new GroupChatAgent({
    name: 'Newsroom',
    description: 'Writer, critic and editor polish a text together.',
    participants: participants(),
    selector,
    maxTurns: 6,
    terminate: 'APPROVED',
  });
}

export const rootAgent = new GroupChatAgent({
  name: 'Newsroom',
  description: 'Writer, critic and editor polish a text together.',
  participants: participants(),
  selector: 'round_robin',
  maxTurns: 6,
  terminate: 'APPROVED',
});

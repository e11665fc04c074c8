/**
 * Generator-critic (review) pattern.
 *
 * A SequentialAgent guarantees the draft exists before it is reviewed: DraftWriter stores its text
 * in state.draft_text, FactChecker reads it through `{draft_text}` and stores its verdict in
 * state.review_status, where a later step (or the application) can act on it.
 *
 * Try: npx troupe run examples/generator-critic --input "The Moon"
 */
import { LlmAgent, SequentialAgent } from '@troupe/core';

export const draftWriter = new LlmAgent({
  name: 'DraftWriter',
  description: 'Writes a short draft on a subject.',
  instruction: 'Write a short paragraph (three sentences at most) about the subject the user gives.',
  outputKey: 'draft_text',
});

export const factChecker = new LlmAgent({
  name: 'FactChecker',
  description: 'Reviews a draft for factual accuracy.',
  instruction:
    "Review this text for factual accuracy:\n\n{draft_text}\n\nReply 'valid' or 'invalid', followed by a one-sentence reason.",
  outputKey: 'review_status',
});

export const rootAgent = new SequentialAgent({
  name: 'WriteAndReview',
  description: 'Writes a draft, then fact-checks it.',
  subAgents: [draftWriter, factChecker],
});

/**
 * Draft, critique, refine: a loop in a graph workflow (`Workflow`).
 *
 * `draft` (an LLM node) writes a first draft and keeps it in state (`outputKey: 'draft'`). The
 * `critic` LLM node answers `{ verdict, feedback }`; `decide` turns the verdict into a route. On
 * `approve` the routed exit goes to `publish`. On `revise`, `refine` rewrites the draft with the
 * feedback and goes back to the critic. The `revise` edge carries `maxIterations: 2`: after two
 * refinements it is used up, no routed edge matches, and DEFAULT_ROUTE publishes the last draft.
 *
 *   START → draft → critic → decide
 *   decide → { approve: publish, revise: refine (at most 2 times), DEFAULT: publish }
 *   refine → critic
 *
 * Try: npx troupe run examples/draft-critic-loop --input "Why tests should wait for events, not sleep"
 * (offline, the critic always asks for a revision, so the loop stops at maxIterations)
 */
import { z } from 'zod';
import { DEFAULT_ROUTE, LlmAgent, Workflow, createEvent, node } from '@troupe/core';

/** How many times the draft may be refined. */
export const MAX_REFINEMENTS = 2;

/** What the critic answers. */
export const Review = z.object({
  verdict: z.enum(['revise', 'approve']),
  feedback: z.string(),
});
export type Review = z.infer<typeof Review>;

/** What `decide` passes on, to `refine` or `publish`. */
export interface Decision {
  draft: string;
  feedback: string;
  approved: boolean;
  /** Which review this was (1 for the first draft). */
  review: number;
}

export const draft = new LlmAgent({
  name: 'draft',
  instruction: 'Write a first draft (one short paragraph) on the topic you are given.',
  outputKey: 'draft',
});

export const critic = new LlmAgent({
  name: 'critic',
  instruction:
    'Review the draft you are given. Answer approve when it is clear, correct and concrete; otherwise revise, with one or two sentences of feedback.',
  outputSchema: Review,
});

export const decide = node(
  (ctx, review: Review) => {
    const decision: Decision = {
      draft: ctx.state.get<string>('draft') ?? '',
      feedback: review.feedback,
      approved: review.verdict === 'approve',
      review: Number(ctx.runId),
    };
    return createEvent({ output: decision, route: review.verdict });
  },
  { name: 'decide' },
);

export const refine = new LlmAgent({
  name: 'refine',
  instruction: 'Rewrite the draft you are given so that it answers the feedback. Reply with the new draft only.',
  outputKey: 'draft',
});

export const publish = node(
  (_ctx, decision: Decision) =>
    decision.approved
      ? `${decision.draft}\n\n(approved at review ${decision.review})`
      : `${decision.draft}\n\n(published unapproved after ${MAX_REFINEMENTS} refinements; last feedback: ${decision.feedback})`,
  { name: 'publish' },
);

export const rootAgent = new Workflow({
  name: 'draft_critic_loop',
  description: 'Drafts a paragraph, then critiques and refines it until approved (at most twice).',
  edges: [
    ['START', draft, critic, decide],
    [decide, { approve: publish, [DEFAULT_ROUTE]: publish }],
    { fromNode: decide, toNode: refine, route: 'revise', maxIterations: MAX_REFINEMENTS },
    [refine, critic],
  ],
});

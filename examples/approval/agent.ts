/**
 * Human in the loop (the seventh pattern of ADK's multi-agent guide).
 *
 * A pipeline prepares an approval request, asks a person to approve it, and carries on with the
 * decision. The approval tool pauses the run (`ctx.requestConfirmation`): the run ends with status
 * 'interrupted', the request waits in the session, and `runner.resume` continues the same
 * invocation once the person has answered — later, or in another process when the sessions are
 * stored in SQLite or PostgreSQL.
 *
 * Try: npx troupe run examples/approval --input "Approve 250 dollars for the team offsite"
 * (the CLI asks "Allow external_approval(...)? [y/N]" at the prompt)
 */
import { z } from 'zod';
import { FunctionTool, LlmAgent, SequentialAgent } from '@troupe/core';

export const recordRequest = new FunctionTool({
  name: 'record_request',
  description: 'Records the amount and the reason of an approval request.',
  parameters: z.object({ amount: z.number(), reason: z.string() }),
  execute: ({ amount, reason }, ctx) => {
    ctx.state.set('approval_amount', amount);
    ctx.state.set('approval_reason', reason);
    return { recorded: true };
  },
});

/** Sends the request to a person and waits for the answer; it returns only once approved. */
export const externalApproval = new FunctionTool({
  name: 'external_approval',
  description: 'Asks a human reviewer to approve a spending request and returns the decision.',
  parameters: z.object({ amount: z.number(), reason: z.string() }),
  execute: async ({ amount, reason }, ctx) => {
    // Pauses the run until a person answers; a rejection ends the call and the model is told.
    await ctx.requestConfirmation({ hint: `Approve ${amount} for "${reason}"?`, payload: { amount, reason } });
    return { decision: 'approved' };
  },
});

export const prepareRequest = new LlmAgent({
  name: 'PrepareApproval',
  instruction: 'Prepare the approval request from the user input: call record_request with the amount and the reason.',
  tools: [recordRequest],
});

export const requestApproval = new LlmAgent({
  name: 'RequestHumanApproval',
  instruction:
    'Use external_approval with the amount {approval_amount?} and the reason {approval_reason?}. Then answer with exactly one word: approved or rejected.',
  tools: [externalApproval],
  outputKey: 'human_decision',
});

export const processDecision = new LlmAgent({
  name: 'ProcessDecision',
  instruction:
    "Check {human_decision?}. If it is 'approved', confirm that the request goes ahead. If it is 'rejected', tell the user.",
});

export const rootAgent = new SequentialAgent({
  name: 'HumanApprovalWorkflow',
  subAgents: [prepareRequest, requestApproval, processDecision],
});

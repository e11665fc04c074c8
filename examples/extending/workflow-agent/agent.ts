import { LlmAgent } from '@troupe/core';
import { RetryAgent } from './retry-agent.js';

/** An answerer that gets three tries when its model is overloaded. `troupe web` shows it as kind `retry`. */
export const rootAgent = new RetryAgent({
  name: 'Steady',
  description: 'Answers, trying again when the model is unavailable.',
  maxAttempts: 3,
  subAgents: [new LlmAgent({ name: 'Answerer', instruction: 'Answer the question in one sentence.' })],
});

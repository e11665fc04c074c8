/**
 * Shared session state with `outputKey` (the CityInfo concept).
 *
 * AgentA stores its answer in state.capital_city; AgentB's instruction reads it with
 * `{capital_city}`, which the framework fills in from state just before AgentB calls its model.
 *
 * Try: npx troupe run examples/city-info --input "France"
 */
import { LlmAgent, SequentialAgent } from '@troupe/core';

export const agentA = new LlmAgent({
  name: 'AgentA',
  instruction:
    'Find the capital of the country the user names (France if they name none). Reply with the city name only.',
  outputKey: 'capital_city',
});

export const agentB = new LlmAgent({
  name: 'AgentB',
  instruction: 'Tell me about the city stored in state: {capital_city}. Two or three sentences.',
});

export const rootAgent = new SequentialAgent({ name: 'CityInfo', subAgents: [agentA, agentB] });

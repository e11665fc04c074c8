/**
 * Coordinator / dispatcher pattern.
 *
 * A central LlmAgent (Coordinator) lists specialists as sub-agents. Its model reads their
 * descriptions and routes each request by calling `transfer_to_agent`; the chosen specialist then
 * answers the user in the same invocation. The next user turn goes straight back to the agent
 * that spoke last (ADK's rule), so a booking conversation stays with Booker.
 *
 * Try: npx troupe run examples/coordinator --input "Book a flight to Paris"
 */
import { LlmAgent } from '@troupe/core';

export const booker = new LlmAgent({
  name: 'Booker',
  description: 'Handles flight and hotel bookings.',
  instruction:
    'You book flights and hotels. Ask for anything missing (destination, dates, travellers), then confirm the booking in one short paragraph.',
});

export const info = new LlmAgent({
  name: 'Info',
  description: 'Provides general information and answers questions.',
  instruction: 'You answer general travel questions briefly and accurately.',
});

export const rootAgent = new LlmAgent({
  name: 'Coordinator',
  description: 'Main coordinator.',
  instruction: 'You are an assistant. Delegate booking tasks to Booker and information requests to Info.',
  subAgents: [booker, info],
});

/**
 * Supervisor pattern (SupervisorAgent from `@troupe/core/patterns`).
 *
 * ResearchLead is a coordinator model with two workers: Searcher (with a fake `search_web` tool)
 * and Summarizer. It delegates one request at a time by calling a worker's tool; the worker runs
 * in the same session on its own branch, and when it finishes its answer comes back to
 * ResearchLead, which delegates again or answers. The delegations are ResearchLead's function
 * calls in the event stream; its final event records `agentState: { stopReason, delegations }`.
 * At most 4 delegations (`maxDelegations`).
 *
 * Try: npx troupe run examples/supervisor --input "Research the James Webb telescope"
 */
import { z } from 'zod';
import { FunctionTool, LlmAgent } from '@troupe/core';
import { SupervisorAgent } from '@troupe/core/patterns';

/** A tiny offline "web": snippets keyed by a word they are about. */
const WEB: Record<string, string> = {
  webb: 'The James Webb Space Telescope launched on 25 December 2021 and observes in infrared.',
  telescope: 'JWST has a 6.5 m segmented mirror and orbits the Sun near the L2 point.',
  mars: 'Mars is the fourth planet from the Sun.',
};

export const searchWeb = new FunctionTool({
  name: 'search_web',
  description: 'Searches the web index and returns result snippets for a research query.',
  parameters: z.object({ query: z.string().describe('What to search for.') }),
  execute: ({ query }) => {
    const words = query.toLowerCase().split(/[^a-z0-9]+/);
    return {
      query,
      results: Object.entries(WEB)
        .filter(([keyword]) => words.includes(keyword))
        .map(([, snippet]) => snippet),
    };
  },
});

export const searcher = new LlmAgent({
  name: 'Searcher',
  description: 'Researches a topic: searches the web and lists the facts found.',
  instruction: 'Search the web with search_web for the request and list the facts you found, one per line.',
  tools: [searchWeb],
});

export const summarizer = new LlmAgent({
  name: 'Summarizer',
  description: 'Summarizes facts into a short paragraph.',
  instruction: 'Summarize the facts you are given in one short paragraph.',
});

export const rootAgent = new SupervisorAgent({
  name: 'ResearchLead',
  description: 'Leads research: delegates searching and summarizing, then answers.',
  instruction:
    'You lead a research team. Delegate finding facts to Searcher, then give the facts to Summarizer, then answer the user with the summary. Delegate one request at a time.',
  subAgents: [searcher, summarizer],
  maxDelegations: 4,
});

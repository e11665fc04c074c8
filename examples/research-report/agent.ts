/**
 * Hierarchical task decomposition with AgentTool.
 *
 * ReportWriter delegates research to ResearchAssistant, which in turn uses two lower-level agents
 * as tools: WebSearch (backed by a fake `search_web` function tool) and Summarizer. Each AgentTool
 * call runs the wrapped agent on its own branch with only the call's input; the result flows back
 * up as the tool's response. Every inner event is stored in the session with its path
 * (`ReportWriter/ResearchAssistant/WebSearch`), but a caller's model only ever sees the result.
 *
 * Try: npx troupe run examples/research-report --input "Research the James Webb telescope and write a report"
 */
import { z } from 'zod';
import { AgentTool, FunctionTool, LlmAgent } from '@troupe/core';

/** A tiny offline "web": snippets keyed by a word they are about. */
const WEB: Record<string, string> = {
  webb: 'The James Webb Space Telescope (JWST) launched on 25 December 2021 and observes in infrared.',
  telescope: 'JWST has a 6.5 m segmented gold-coated mirror and orbits the Sun near the L2 point.',
  hubble: 'The Hubble Space Telescope launched in 1990 and observes mainly in visible and ultraviolet light.',
  mars: 'Mars is the fourth planet from the Sun; Perseverance landed in Jezero crater in February 2021.',
};

export const searchWeb = new FunctionTool({
  name: 'search_web',
  description: 'Searches the web index and returns result snippets for a research query.',
  parameters: z.object({ query: z.string().describe('What to search for.') }),
  execute: ({ query }) => {
    const words = query.toLowerCase().split(/[^a-z0-9]+/);
    const results = Object.entries(WEB)
      .filter(([keyword]) => words.includes(keyword))
      .map(([, snippet]) => snippet);
    return { query, results };
  },
});

export const webSearch = new LlmAgent({
  name: 'WebSearch',
  description: 'Performs web searches to find facts for research.',
  instruction: 'Search the web with search_web for the request and list the facts you found, one per line.',
  tools: [searchWeb],
});

export const summarizer = new LlmAgent({
  name: 'Summarizer',
  description: 'Summarizes text.',
  instruction: 'Summarize the text you are given in two or three sentences.',
});

export const researchAssistant = new LlmAgent({
  name: 'ResearchAssistant',
  description: 'Finds and summarizes research on a topic.',
  instruction: 'Find facts on the topic with WebSearch, then have Summarizer condense them. Reply with the summary.',
  tools: [new AgentTool({ agent: webSearch }), new AgentTool({ agent: summarizer })],
});

export const rootAgent = new LlmAgent({
  name: 'ReportWriter',
  description: 'Writes short reports.',
  instruction:
    'Write a short report on the topic the user asks about. Use ResearchAssistant to gather the information first.',
  tools: [new AgentTool({ agent: researchAssistant })],
});

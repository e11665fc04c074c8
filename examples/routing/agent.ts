/**
 * Routing between agents (RoutedAgent, seed 003).
 *
 * A router function picks one agent per invocation; if the chosen agent fails before producing
 * anything, the router is asked again with the failed keys, so it can choose a fallback. This file
 * shows the four uses the seed describes:
 *   - `rootAgent`: routing by input complexity, with a classifier model called inside the router;
 *   - `withFallback`: a primary agent and a fallback used when the primary fails;
 *   - `abTest`: A/B selection by an external config value that can change between invocations;
 *   - `assistant`: a planning mode that switches to a read-only agent with other instructions.
 *
 * Try: npx troupe run examples/routing --input "Compare three database designs for an audit log"
 */
import { FunctionTool, LlmAgent, RoutedAgent, contentText, type BaseAgent, type InvocationContext } from '@troupe/core';

// --- Routing by input complexity -------------------------------------------------------------

const simple = new LlmAgent({
  name: 'simple',
  instruction: 'You are a simple assistant for basic questions. Answer in one sentence.',
});
const complex = new LlmAgent({
  name: 'complex',
  instruction: 'You are an expert assistant for complex analysis. Answer step by step.',
});

/** Asks a model (the same one the agents use) whether the request is simple or complex. */
async function byComplexity(agents: Readonly<Record<string, BaseAgent>>, ctx: InvocationContext): Promise<string> {
  const text = contentText(ctx.userContent);
  if (!text) return 'simple';
  const classifier = (agents.simple as LlmAgent).canonicalModel(ctx);
  const prompt = `Classify this request as 'simple' or 'complex'. Reply with ONLY that word.\nRequest: "${text}"`;
  let answer = '';
  for await (const response of classifier.generateContentAsync({
    model: classifier.model,
    contents: [{ role: 'user', parts: [{ text: prompt }] }],
    config: {},
  })) {
    if (!response.partial) answer += contentText(response.content);
  }
  return answer.toLowerCase().includes('complex') ? 'complex' : 'simple';
}

export const rootAgent = new RoutedAgent({ name: 'by_complexity', agents: { simple, complex }, router: byComplexity });

// --- Fallback on error -----------------------------------------------------------------------

export const primary = new LlmAgent({ name: 'primary', instruction: 'You are the primary agent.' });
export const fallback = new LlmAgent({ name: 'fallback', instruction: 'You are the fallback agent.' });

export const withFallback = new RoutedAgent({
  name: 'with_fallback',
  agents: { primary, fallback },
  router: (_agents, _ctx, errorContext) => {
    if (!errorContext) return 'primary'; // try the primary first
    if (errorContext.failedKeys.has('primary')) return 'fallback'; // fall back if it failed
    return undefined; // nothing left: the last error propagates
  },
});

// --- A/B selection by external config ---------------------------------------------------------

/** Change `selectedAgent` between invocations to route to the other agent. */
export const abConfig = { selectedAgent: 'agent_a' };

export const abTest = new RoutedAgent({
  name: 'ab_test',
  agents: {
    agent_a: new LlmAgent({ name: 'agent_a', instruction: 'You are Agent A. Always identify yourself as Agent A.' }),
    agent_b: new LlmAgent({ name: 'agent_b', instruction: 'You are Agent B. Always identify yourself as Agent B.' }),
  },
  router: () => abConfig.selectedAgent,
});

// --- Planning mode -----------------------------------------------------------------------------

export const readFile = new FunctionTool({
  name: 'read_file',
  description: 'Reads content from a file.',
  parameters: { type: 'object', properties: { filePath: { type: 'string' } }, required: ['filePath'] },
  execute: (args) => ({ content: `Contents of ${String(args.filePath)}` }),
});

export const writeFile = new FunctionTool({
  name: 'write_file',
  description: 'Writes content to a file.',
  parameters: {
    type: 'object',
    properties: { filePath: { type: 'string' }, content: { type: 'string' } },
    required: ['filePath', 'content'],
  },
  execute: (args) => ({ result: `Wrote to ${String(args.filePath)}` }),
});

/** Set `planning` before an invocation to route to the read-only planning agent. */
export const mode = { planning: false };

export const assistant = new RoutedAgent({
  name: 'assistant',
  agents: {
    basic: new LlmAgent({
      name: 'basic',
      instruction: 'You are a basic assistant. Use tools to help the user.',
      tools: [readFile, writeFile],
    }),
    planning: new LlmAgent({
      name: 'planning',
      instruction: 'You are a planning expert. Analyze carefully. You can only read files.',
      tools: [readFile],
    }),
  },
  router: () => (mode.planning ? 'planning' : 'basic'),
});

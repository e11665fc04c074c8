/**
 * Research fan-out as a graph workflow (`Workflow`).
 *
 * `plan` splits the request into topics. `research` is an LLM node with `parallelWorker: true`: it
 * runs once per topic, at most three at a time, each in a conversation of its own, and outputs the
 * notes in the order of the topics. `compile_notes` pairs each topic with its notes, and the
 * `summary` LLM node writes the brief.
 *
 *   START → plan → research (one LLM run per topic) → compile_notes → summary
 *
 * Every item is recorded as it finishes, so a run that stops half-way (a crash, a deploy) and is
 * resumed researches only the topics that had not finished.
 *
 * Try: npx troupe run examples/research-fanout --input "solar power, wind power, tidal power"
 */
import { LlmAgent, Workflow, node } from '@troupe/core';

/** The most topics one request may fan out to. */
export const MAX_TOPICS = 8;

/** `"a, b and c"` (or one per line) → `['a', 'b', 'c']`; the request itself when it lists nothing. */
export function topicsOf(request: string): string[] {
  const text = request.replace(/^\s*(research|compare|look into)\s*:?\s*/i, '');
  const topics = text
    .split(/\s*(?:,|;|\n|\band\b)\s*/i)
    .map((t) => t.trim().replace(/[.?!]+$/, ''))
    .filter((t) => t.length > 0);
  return (topics.length > 0 ? topics : [request.trim()]).slice(0, MAX_TOPICS);
}

export const plan = node(
  (ctx, request: string) => {
    const topics = topicsOf(request);
    ctx.state.set('topics', topics);
    return topics;
  },
  { name: 'plan' },
);

export const researcher = new LlmAgent({
  name: 'researcher',
  instruction:
    'Write three short research notes on the topic you are given: what it is, where it stands, one open question.',
});

/** One researcher run per topic, three at a time; the output is the notes in topic order. */
export const research = node(researcher, { name: 'research', parallelWorker: true, maxParallelWorkers: 3 });

export const compileNotes = node(
  (ctx, notes: string[]) => {
    const topics = ctx.state.get<string[]>('topics') ?? [];
    return topics.map((topic, i) => `## ${topic}\n${notes[i] ?? '(no notes)'}`).join('\n\n');
  },
  { name: 'compile_notes' },
);

export const summary = new LlmAgent({
  name: 'summary',
  instruction: 'Write a one-paragraph brief from the research notes you are given, comparing the topics.',
});

export const rootAgent = new Workflow({
  name: 'research_fanout',
  description: 'Researches each topic of a request in parallel, then writes one brief.',
  edges: [['START', plan, research, compileNotes, summary]],
});

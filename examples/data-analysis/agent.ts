/**
 * A data analyst with an Agent Skill that runs code.
 *
 * `Analyst` has the skills of `./skills` through a `SkillToolset`: its instruction lists each skill
 * in one line, and `load_skill` gives it a skill's instructions only when a task needs them. The
 * `csv-summary` skill has a Python script (standard library only) that summarises a CSV and draws
 * a bar chart as SVG. The script runs through a `LocalProcessExecutor` in the session's working
 * folder; running it pauses the run for a person's approval, which shows the script's code. The
 * CSV the user sends is saved as an artifact (`troupe run --attach`, or `SaveFilesAsArtifactsPlugin`
 * on your Runner) and placed in the working folder by `input_files`; the files the script writes
 * (`summary.json`, `chart.svg`) come back as artifacts.
 *
 * Try (without --model the offline demo model, not an LLM, calls one tool picked by keyword: it
 * lists the skills, or loads one; with a model the analyst loads the skill and asks you to approve
 * running its script, showing its code):
 *   npx troupe run examples/data-analysis --input "Which skills do you have?"
 *   npx troupe run examples/data-analysis --attach examples/data-analysis/sales.csv --input "Load the skill for this file"
 *   npx troupe run examples/data-analysis --model openai/gpt-4o-mini --attach examples/data-analysis/sales.csv \
 *     --input "Summarise sales.csv and chart revenue by region"
 *
 * A local process is not a sandbox: see docs/code-execution.md for what the executor does and does
 * not protect against.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { LlmAgent, LocalProcessExecutor, SkillToolset } from '@troupe/core';

/** The skills folder beside this file. */
export const SKILLS_DIR = fileURLToPath(new URL('./skills', import.meta.url));

/** Options of {@link analyst}. */
export interface AnalystOptions {
  /** Where the sessions' working folders are made. */
  root: string;
  /** Run scripts without asking a person first. @default false */
  allowCodeExecution?: boolean;
}

/** The analyst agent, its scripts running under `root`. */
export function analyst(options: AnalystOptions): LlmAgent {
  const executor = new LocalProcessExecutor({ root: options.root, languages: ['python'], timeoutMs: 20_000 });
  return new LlmAgent({
    name: 'Analyst',
    description: 'Analyses CSV files the user sends: totals, averages and charts, computed by a script.',
    instruction:
      'You are a data analyst. When the user sends a CSV file (it is saved as an artifact, named in their message) or asks about one, load the matching skill and follow it. Report only numbers the script computed, and name the chart file when you made one.',
    tools: [new SkillToolset({ dirs: SKILLS_DIR, executor })],
    allowCodeExecution: options.allowCodeExecution ?? false,
  });
}

/** For `troupe run`: working folders under `.troupe/code` of the current directory. */
export const rootAgent = analyst({ root: join(process.cwd(), '.troupe', 'code') });

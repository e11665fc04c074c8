import { resolve } from 'node:path';
import type { CodeExecutor } from '../code-execution/code-executor.js';
import { ConfigurationError } from '../errors.js';
import type { BaseTool } from '../tools/base-tool.js';
import { BaseToolset } from '../tools/base-toolset.js';
import type { AgentSkill } from './agent-skill.js';
import { ListSkillsTool } from './list-skills-tool.js';
import { LoadSkillResourceTool } from './load-skill-resource-tool.js';
import { LoadSkillTool } from './load-skill-tool.js';
import { loadSkills } from './load-skills.js';
import { RunSkillScriptTool } from './run-skill-script-tool.js';

/** Options of {@link SkillToolset}. */
export interface SkillToolsetOptions {
  /**
   * Where the skills are: each entry is a folder of skill folders (`skills/csv-summary/SKILL.md`,
   * `skills/pdf-forms/SKILL.md`, ...) or one skill folder (a folder that holds a `SKILL.md`).
   * Relative paths are resolved against the working directory when the toolset is made. Skill
   * names must be unique across all of them.
   */
  dirs: string | readonly string[];
  /**
   * Runs skill scripts: with an executor the toolset also offers `run_skill_script`, which runs a
   * file under a skill's `scripts/` through it, after a human approves (a confirmation interrupt)
   * unless the agent has `allowCodeExecution: true`. Without one, scripts can only be read.
   * @default undefined (no `run_skill_script`)
   */
  executor?: CodeExecutor | undefined;
}

/**
 * Agent Skills (the agentskills.io `SKILL.md` format) as tools: `list_skills`, `load_skill` and
 * `load_skill_resource`, plus `run_skill_script` when an executor is given. The system instruction
 * gets one line per skill (`- name: description`); a skill's instructions reach the model only when
 * it calls `load_skill` (progressive disclosure), and stay in the history from then on.
 *
 * The skills are read and checked on first use, when an agent's run first asks for the tools: an
 * invalid `SKILL.md` fails that run with a `ConfigurationError` naming the file and line. Call
 * {@link skills} at start-up to check them earlier. They are read once; make a new toolset to
 * pick up changed files.
 *
 * @example
 * const skills = new SkillToolset({ dirs: ['./skills'] });
 * await skills.skills(); // optional: fail at start-up on an invalid SKILL.md
 * const analyst = new LlmAgent({ name: 'analyst', model, instruction: 'Analyse data.', tools: [skills] });
 */
export class SkillToolset extends BaseToolset {
  /** The folders given, as absolute paths. */
  readonly dirs: readonly string[];
  private readonly tools: readonly BaseTool[];
  private loading: Promise<ReadonlyMap<string, AgentSkill>> | undefined;

  constructor(options: SkillToolsetOptions) {
    super();
    const dirs = typeof options?.dirs === 'string' ? [options.dirs] : options?.dirs;
    if (!Array.isArray(dirs) || dirs.length === 0 || !dirs.every((dir) => typeof dir === 'string' && dir !== '')) {
      throw new ConfigurationError(
        `SkillToolset: 'dirs' must be a folder path or a non-empty list of them; got ${JSON.stringify(options?.dirs)}. Pass e.g. { dirs: ['./skills'] }.`,
      );
    }
    const executor = options.executor;
    if (executor !== undefined && (typeof executor !== 'object' || typeof executor.execute !== 'function')) {
      throw new ConfigurationError(
        `SkillToolset: 'executor' must be a CodeExecutor (an object with execute(request)), such as new LocalProcessExecutor({ root }); got ${typeof executor}.`,
      );
    }
    this.dirs = dirs.map((dir) => resolve(dir));
    const source = () => this.load();
    this.tools = [
      new ListSkillsTool(source, executor !== undefined),
      new LoadSkillTool(source),
      new LoadSkillResourceTool(source),
      ...(executor ? [new RunSkillScriptTool(source, executor)] : []),
    ];
  }

  /**
   * The skills, read and checked on the first call (later calls reuse them). Rejects with a
   * `ConfigurationError` naming the file and line of an invalid `SKILL.md`, a missing folder or a
   * duplicate name; after a failure the next call reads the folders again.
   */
  async skills(): Promise<readonly AgentSkill[]> {
    return [...(await this.load()).values()];
  }

  /** The tools, once the skills have been read and checked. */
  override async getTools(): Promise<readonly BaseTool[]> {
    await this.load();
    return this.tools;
  }

  private load(): Promise<ReadonlyMap<string, AgentSkill>> {
    if (!this.loading) {
      const loading = loadSkills(this.dirs);
      this.loading = loading;
      // A failed read is not kept: fixing the file and running again works without a new toolset.
      loading.catch(() => {
        if (this.loading === loading) this.loading = undefined;
      });
    }
    return this.loading;
  }
}

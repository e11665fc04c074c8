/**
 * One Agent Skill (the agentskills.io format): a folder with a `SKILL.md` whose YAML frontmatter
 * names and describes the skill and whose body is its instructions; the folder's other files
 * (`scripts/`, `references/`, `assets/`) are its resources.
 */
export interface AgentSkill {
  /** The skill's name: lowercase letters, digits and single hyphens, 1-64 characters, the folder's name. */
  readonly name: string;
  /** What the skill does and when to use it (1-1024 characters); the model reads it in the skill list. */
  readonly description: string;
  /** The frontmatter's `license`, when set. */
  readonly license?: string | undefined;
  /** The frontmatter's `compatibility` (what the skill needs: tools, network, packages), when set. */
  readonly compatibility?: string | undefined;
  /** The frontmatter's `metadata` (string keys to string values), when set. */
  readonly metadata?: Readonly<Record<string, string>> | undefined;
  /**
   * The frontmatter's `allowed-tools` (a space-separated string or a list), when set. Informational:
   * Troupe does not restrict an agent's tools by it.
   */
  readonly allowedTools?: readonly string[] | undefined;
  /** The absolute path of the skill's folder. */
  readonly dir: string;
  /** The absolute path of its `SKILL.md`. */
  readonly file: string;
  /** The body of `SKILL.md` after the frontmatter: the instructions `load_skill` returns. */
  readonly instructions: string;
}

import type { BaseAgent } from '../agents/base-agent.js';
import { ConfigurationError } from '../errors.js';

/** Rejects two agents with one name in a pattern's list (they are picked by name). */
export function checkUniqueNames(pattern: string, name: string, option: string, agents: readonly BaseAgent[]): void {
  const seen = new Set<string>();
  for (const agent of agents) {
    if (seen.has(agent.name)) {
      throw new ConfigurationError(
        `${pattern} '${name}' has two ${option} named '${agent.name}'; give each a unique name (they are chosen by name).`,
      );
    }
    seen.add(agent.name);
  }
}

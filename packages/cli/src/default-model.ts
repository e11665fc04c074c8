import { AgentTool, type BaseAgent, type BaseLlm, LlmAgent, resolveModel } from '@troupe/core';
import { CliUsageError } from './errors.js';
import { suggestModel } from './model-suggestion.js';

/** The model string used when `--model` is not given. */
export const OFFLINE_MODEL = 'offline';

/** The default model for LlmAgents that name none. */
export interface DefaultModelChoice {
  /** The resolved model, passed to the Runner as `defaultModel`. */
  model: BaseLlm;
  /** True when no model was chosen and the offline demo model stands in. */
  offline: boolean;
}

/**
 * Resolves `--model` through core's model registry, or falls back to the offline demo model.
 * Resolving up front turns a mistyped model string into a usage error before the chat starts.
 * Call it after loading the agent module, which may register providers.
 */
export function chooseDefaultModel(modelFlag: string | undefined): DefaultModelChoice {
  if (modelFlag === undefined) return { model: resolveModel(OFFLINE_MODEL), offline: true };
  try {
    return { model: resolveModel(modelFlag), offline: modelFlag === OFFLINE_MODEL };
  } catch (error) {
    throw modelUsageError('--model', modelFlag, error);
  }
}

/**
 * The usage error for a model string the registry refused: for a name no provider takes, the
 * closest known one (`did you mean \`openai/gpt-4o\`?`) and the forms that work; otherwise the
 * provider's own reason.
 */
export function modelUsageError(flag: string, name: string, error: unknown): CliUsageError {
  const reason = error instanceof Error ? error.message : String(error);
  if (!reason.startsWith('No model provider is registered'))
    return new CliUsageError(`${flag} ${JSON.stringify(name)} cannot be used: ${reason}`);
  const suggestion = suggestModel(name);
  return new CliUsageError(
    `${flag} ${JSON.stringify(name)} is not a model name troupe knows${suggestion ? `: did you mean \`${suggestion}\`?` : '.'} Model names start with their provider: openai/<model>, openai-responses/<model>, gemini-<version> (or gemini/<model>), anthropic/<model>, ollama/<model>, openai-compatible/<model>; or 'offline' for the demo model.`,
  );
}

/**
 * The names of the LlmAgents that would use the default model: they set no model and no ancestor
 * LlmAgent sets one, or (for agents loaded from a YAML/JSON definition, which get the default as
 * their own model) they or the ancestor they inherit from have `defaultModel` itself. Agents wrapped
 * in an AgentTool count too (they inherit nothing).
 */
export function agentsUsingDefaultModel(root: BaseAgent, defaultModel?: BaseLlm): string[] {
  const names: string[] = [];
  const seen = new Set<BaseAgent>();
  // What an agent without a model of its own answers with: the default, or an ancestor's own model.
  const visit = (agent: BaseAgent, inherited: 'default' | 'own'): void => {
    if (seen.has(agent)) return;
    seen.add(agent);
    let source = inherited;
    if (agent instanceof LlmAgent) {
      if (agent.model !== undefined)
        source = defaultModel !== undefined && agent.model === defaultModel ? 'default' : 'own';
      if (source === 'default') names.push(agent.name);
      for (const tool of agent.tools) if (tool instanceof AgentTool) visit(tool.agent, 'default');
    }
    for (const child of agent.subAgents) visit(child, source);
  };
  visit(root, 'default');
  return names;
}

/** The line the CLI prints when the offline model answers for `agentNames`. */
export function offlineModelNotice(agentNames: readonly string[]): string {
  return `Note: ${agentNames.join(', ')} will answer with the offline demo model, which is not an LLM (it echoes and picks tools by keyword). Choose a real model with --model, e.g. --model openai/gpt-4o-mini.`;
}

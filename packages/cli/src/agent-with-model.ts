import { basename, dirname, resolve } from 'node:path';
import {
  agentsUsingDefaultModel,
  chooseDefaultModel,
  type DefaultModelChoice,
  offlineModelNotice,
} from './default-model.js';
import type { CliIo } from './io.js';
import { isAgentDefinition, type LoadedAgent, loadAgentModule, resolveAgentFile } from './load-agent.js';

/** An agent loaded for a command, with the default model its LlmAgents without one answer with. */
export interface AgentWithModel {
  loaded: LoadedAgent;
  defaultModel: DefaultModelChoice;
  /**
   * The line saying that the offline demo model answers for some agents, when it does: for the
   * command to print on stderr once its arguments are accepted, so that it never comes before a
   * usage error.
   */
  offlineNotice: string | undefined;
}

/**
 * Loads the agent a command names (file, definition or directory) and chooses the default model
 * from `--model`: a YAML/JSON definition gets it from the loader; a module is loaded first, as it
 * may register the providers `--model` names. When the offline demo model would answer for some
 * agent, the notice says so.
 */
export async function loadAgentWithModel(
  target: string,
  modelFlag: string | undefined,
  io: Pick<CliIo, 'cwd'>,
): Promise<AgentWithModel> {
  const file = await resolveAgentFile(target, io.cwd);
  const definitionModel = isAgentDefinition(file) ? chooseDefaultModel(modelFlag) : undefined;
  let loaded = await loadAgentModule(file, {
    cwd: io.cwd,
    ...(definitionModel ? { model: definitionModel.model } : {}),
  });
  // A directory is the app, as `troupe api`/`web` name it, whatever its entry file is called (team.yaml).
  if (file !== resolve(io.cwd, target)) loaded = { ...loaded, appName: basename(dirname(file)) };
  const defaultModel = definitionModel ?? chooseDefaultModel(modelFlag);
  const users = defaultModel.offline ? agentsUsingDefaultModel(loaded.agent, defaultModel.model) : [];
  return { loaded, defaultModel, offlineNotice: users.length > 0 ? offlineModelNotice(users) : undefined };
}

import { BaseAgent, ConfigurationError, Runner, type SessionService } from '@troupe/core';
import { checkServable } from './app-tool.js';
import { RESUME_TOOL } from './resume-tool.js';

/**
 * Where {@link mcpServer} finds its apps when they are not all at hand: `createApp`'s registry of
 * an agents directory (apps load on first use), or a source of one's own. Each name is one tool.
 *
 * @example
 * const source: McpAppSource = {
 *   names: async () => ['travel'],
 *   runner: async (name) => runners.get(name)!,
 * };
 */
export interface McpAppSource {
  /** The app names, in the order their tools are listed. */
  names(): Promise<readonly string[]>;
  /** The runner of an app (loading it on first use); rejects when the app cannot be loaded. */
  runner(name: string): Promise<Runner>;
}

/** The apps as the server reads them: never the reserved tool name `resume`. */
export type AppSource = McpAppSource;

/** Apps given as root agents by name: a runner each, on the shared session store, made on first use. */
export function recordSource(apps: Readonly<Record<string, BaseAgent>>, sessionService: SessionService): AppSource {
  for (const [name, agent] of Object.entries(apps)) {
    if (!(agent instanceof BaseAgent))
      throw new ConfigurationError(
        `mcpServer's apps['${name}'] must be an agent (a BaseAgent such as LlmAgent); got ${agent === null ? 'null' : typeof agent}.`,
      );
    checkAppName(name);
    checkServable(name, agent);
  }
  const runners = new Map<string, Runner>();
  return {
    names: () => Promise.resolve(Object.keys(apps)),
    runner(name) {
      let runner = runners.get(name);
      if (!runner) {
        const agent = Object.hasOwn(apps, name) ? apps[name] : undefined;
        if (!agent) return Promise.reject(new ConfigurationError(`There is no app '${name}'.`));
        runner = new Runner({ appName: name, agent, sessionService });
        runners.set(name, runner);
      }
      return Promise.resolve(runner);
    },
  };
}

/** One runner served as the only app, under its app name. */
export function runnerSource(runner: Runner): AppSource {
  checkAppName(runner.appName);
  checkServable(runner.appName, runner.agent);
  return {
    names: () => Promise.resolve([runner.appName]),
    runner: (name) =>
      name === runner.appName
        ? Promise.resolve(runner)
        : Promise.reject(new ConfigurationError(`There is no app '${name}'.`)),
  };
}

/**
 * A caller's source, without an app named like the server's `resume` tool: its folder name cannot
 * be refused when it is made (a directory is read later), so it is left out of the tools.
 */
export function wrapSource(source: McpAppSource): AppSource {
  return {
    names: async () => (await source.names()).filter((name) => name !== RESUME_TOOL),
    runner: (name) => source.runner(name),
  };
}

function checkAppName(name: string): void {
  if (name === RESUME_TOOL)
    throw new ConfigurationError(
      `An app named '${RESUME_TOOL}' cannot be served over MCP: '${RESUME_TOOL}' is the server's tool that answers paused runs. Rename the app.`,
    );
  if (name.length === 0)
    throw new ConfigurationError("mcpServer's apps has an app named ''; each app name becomes a tool name. Name it.");
}

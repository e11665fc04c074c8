import { AddSessionToMemoryPlugin, type BaseAgent, type BaseLlm, type BasePlugin, Runner } from '@troupe/core';
import type { McpAppSource } from '@troupe/mcp';
import { discoverApps, type DiscoveredApp } from '@troupe/server';
import { CliUsageError } from '../errors.js';
import { importModule } from '../import-module.js';
import { loadAgentModule } from '../load-agent.js';
import type { ServedApps } from '../served-apps.js';
import type { SessionStore } from '../session-store.js';

/** What `troupe mcp` serves its apps with. */
export interface McpAppsOptions {
  served: ServedApps;
  /** `--app`: only this app. */
  only: string | undefined;
  cwd: string;
  store: SessionStore;
  defaultModel: BaseLlm;
  plugins: readonly BasePlugin[];
}

/** The apps of `troupe mcp`, their names, and how to close what their agents hold open. */
export interface McpApps {
  source: McpAppSource;
  names: readonly string[];
  close(): Promise<void>;
}

/**
 * The apps `troupe mcp` serves, as `troupe api` finds them: the folders of a directory (found
 * without running code, each loaded on its first use) or the one agent of a file (loaded now);
 * only `--app` when given. Each gets a runner on the command's session store, with its default
 * model, long-term memory (sessions added after each run) and plugins.
 */
export async function mcpApps(options: McpAppsOptions): Promise<McpApps> {
  const loaders = await appLoaders(options);
  const runners = new Map<string, Promise<Runner>>();
  const plugins = [new AddSessionToMemoryPlugin(), ...options.plugins];
  const source: McpAppSource = {
    names: () => Promise.resolve([...loaders.keys()]),
    runner(name) {
      let runner = runners.get(name);
      if (!runner) {
        const load = loaders.get(name);
        if (!load) return Promise.reject(new CliUsageError(`There is no app '${name}'.`));
        runner = load().then(
          (agent) =>
            new Runner({
              appName: name,
              agent,
              sessionService: options.store.service,
              artifactService: options.store.artifacts,
              memoryService: options.store.memories,
              defaultModel: options.defaultModel,
              plugins,
            }),
        );
        runners.set(name, runner);
        // An app that failed to load (a syntax error being fixed) is loaded again on its next call.
        void runner.catch(() => runners.delete(name));
      }
      return runner;
    },
  };
  return {
    source,
    names: [...loaders.keys()],
    async close() {
      const made = await Promise.allSettled(runners.values());
      await Promise.allSettled(made.flatMap((r) => (r.status === 'fulfilled' ? [r.value.close()] : [])));
    },
  };
}

/** How to load each app served, by name. */
async function appLoaders(options: McpAppsOptions): Promise<Map<string, () => Promise<BaseAgent>>> {
  const { served, only } = options;
  if (served.kind === 'one') {
    const loaded = await loadAgentModule(served.file, { cwd: options.cwd, model: options.defaultModel });
    const name = served.appName ?? loaded.appName;
    if (only !== undefined && only !== name)
      throw new CliUsageError(`--app ${only}: the file serves one app, '${name}'. Leave --app out, or name '${name}'.`);
    return new Map([[name, () => Promise.resolve(loaded.agent)]]);
  }
  const apps: DiscoveredApp[] = await discoverApps(served.dir, {
    importModule,
    loadAgentOptions: { model: options.defaultModel },
  });
  const chosen = only === undefined ? apps : apps.filter((app) => app.name === only);
  if (only !== undefined && chosen.length === 0)
    throw new CliUsageError(
      `--app ${only}: there is no app '${only}' in ${served.dir}; ${apps.length === 0 ? 'it has none (each app is a folder with an agent.ts, agent.js or agent.yaml)' : `its apps are ${apps.map((a) => a.name).join(', ')}`}.`,
    );
  return new Map(chosen.map((app) => [app.name, () => app.load()]));
}

import {
  AddSessionToMemoryPlugin,
  type ArtifactService,
  type BaseAgent,
  type CompactionOptions,
  type BaseLlm,
  type BasePlugin,
  ConfigurationError,
  type LoadAgentOptions,
  type MemoryService,
  Runner,
  type SessionService,
} from '@troupe/core';
import { discoverApps, type DiscoveredApp, type ImportModule } from './discover-apps.js';
import { HttpError } from './http-error.js';

/** What the registry needs to build one runner per app. */
export interface AppRegistryOptions {
  apps: Readonly<Record<string, BaseAgent>> | undefined;
  agentsDir: string | undefined;
  importModule: ImportModule;
  loadAgentOptions: LoadAgentOptions | undefined;
  sessionService: SessionService;
  artifactService: ArtifactService;
  memoryService: MemoryService | undefined;
  plugins: readonly BasePlugin[];
  defaultModel: BaseLlm | string | undefined;
  leaseTtlMs: number | undefined;
  secrets: readonly string[] | undefined;
  compaction?: CompactionOptions | undefined;
}

/** The apps the server offers, by name, each with its runner (made on first use). */
export class AppRegistry {
  private discovery: Promise<Map<string, DiscoveredApp>> | undefined;
  private readonly runners = new Map<string, Promise<Runner>>();
  private readonly plugins: readonly BasePlugin[];

  constructor(private readonly options: AppRegistryOptions) {
    for (const [name, agent] of Object.entries(options.apps ?? {})) {
      if (!agent || typeof agent.runAsync !== 'function')
        throw new ConfigurationError(
          `apps['${name}'] must be an agent (a BaseAgent such as LlmAgent); got ${String(agent)}.`,
        );
      if (name.length === 0 || name.includes('/'))
        throw new ConfigurationError(
          `App name ${JSON.stringify(name)} cannot be used in a URL path; use letters, digits, '_' or '-'.`,
        );
    }
    // With memory, each session is added to it after every run (unless the caller's plugins do it already).
    const remember =
      options.memoryService !== undefined &&
      !options.plugins.some((plugin) => plugin instanceof AddSessionToMemoryPlugin);
    this.plugins = remember ? [...options.plugins, new AddSessionToMemoryPlugin()] : [...options.plugins];
  }

  /** The app names, explicit apps first, then those found in `agentsDir`. */
  async names(): Promise<string[]> {
    const explicit = Object.keys(this.options.apps ?? {});
    const found = [...(await this.discovered()).keys()].filter((name) => !explicit.includes(name));
    return [...explicit, ...found];
  }

  /** Closes every runner made so far (their toolsets, such as MCP servers). */
  async close(): Promise<void> {
    const pending = [...this.runners.values()];
    this.runners.clear();
    // An app that failed to load has nothing to close.
    await Promise.allSettled(pending.map(async (runner) => (await runner).close()));
  }

  /** The runner of an app; 404 when there is no such app. */
  async runner(appName: string): Promise<Runner> {
    let runner = this.runners.get(appName);
    if (!runner) {
      runner = this.makeRunner(appName);
      this.runners.set(appName, runner);
      // A failed load (e.g. a syntax error in agent.ts) is retried on the next request.
      void runner.catch(() => this.runners.delete(appName));
    }
    return runner;
  }

  private async makeRunner(appName: string): Promise<Runner> {
    const agent = Object.hasOwn(this.options.apps ?? {}, appName)
      ? this.options.apps![appName]!
      : await this.loadDiscovered(appName);
    return new Runner({
      appName,
      agent,
      sessionService: this.options.sessionService,
      artifactService: this.options.artifactService,
      ...(this.options.memoryService ? { memoryService: this.options.memoryService } : {}),
      plugins: this.plugins,
      ...(this.options.defaultModel === undefined ? {} : { defaultModel: this.options.defaultModel }),
      ...(this.options.leaseTtlMs === undefined ? {} : { leaseTtlMs: this.options.leaseTtlMs }),
      ...(this.options.secrets === undefined ? {} : { secrets: [...this.options.secrets] }),
      ...(this.options.compaction === undefined ? {} : { compaction: this.options.compaction }),
    });
  }

  private async loadDiscovered(appName: string): Promise<BaseAgent> {
    const app = (await this.discovered()).get(appName);
    if (!app)
      throw new HttpError(
        404,
        'APP_NOT_FOUND',
        `There is no app '${appName}'. GET /list-apps lists the apps this server offers.`,
      );
    return app.load();
  }

  private discovered(): Promise<Map<string, DiscoveredApp>> {
    const dir = this.options.agentsDir;
    if (dir === undefined) return Promise.resolve(new Map());
    if (!this.discovery) {
      const discovery = discoverApps(dir, {
        importModule: this.options.importModule,
        ...(this.options.loadAgentOptions ? { loadAgentOptions: this.options.loadAgentOptions } : {}),
      }).then((apps) => new Map(apps.map((a) => [a.name, a])));
      this.discovery = discovery;
      // An unreadable directory is looked at again on the next request.
      void discovery.catch(() => {
        if (this.discovery === discovery) this.discovery = undefined;
      });
    }
    return this.discovery;
  }
}

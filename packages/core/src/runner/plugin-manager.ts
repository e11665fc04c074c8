import { ConfigurationError } from '../errors.js';
import type { BasePlugin, PluginHook } from './base-plugin.js';

type HookParams<H extends PluginHook> = Parameters<NonNullable<BasePlugin[H]>>[0];
type HookResult<H extends PluginHook> = Exclude<Awaited<ReturnType<NonNullable<BasePlugin[H]>>>, void>;

/** Runs a runner's plugins in registration order. Internal. */
export class PluginManager {
  readonly plugins: readonly BasePlugin[];
  private readonly present = new Set<PluginHook>();

  constructor(plugins: readonly BasePlugin[] = []) {
    const names = new Set<string>();
    for (const plugin of plugins) {
      if (names.has(plugin.name)) {
        throw new ConfigurationError(`Two plugins are named '${plugin.name}'. Give each plugin a unique name.`);
      }
      names.add(plugin.name);
    }
    this.plugins = plugins;
    for (const plugin of plugins) {
      for (const hook of HOOKS) if (typeof plugin[hook] === 'function') this.present.add(hook);
    }
  }

  /** True when some plugin implements the hook (lets hot paths skip the call). */
  has(hook: PluginHook): boolean {
    return this.present.has(hook);
  }

  /** Calls the hook on each plugin in order; the first defined result wins and stops the rest. */
  async run<H extends PluginHook>(hook: H, params: HookParams<H>): Promise<HookResult<H> | undefined> {
    if (!this.present.has(hook)) return undefined;
    for (const plugin of this.plugins) {
      const fn = plugin[hook] as ((p: HookParams<H>) => unknown) | undefined;
      if (!fn) continue;
      const result = await fn.call(plugin, params);
      if (result !== undefined) return result as HookResult<H>;
    }
    return undefined;
  }
}

const HOOKS: readonly PluginHook[] = [
  'onUserMessage',
  'beforeRun',
  'afterRun',
  'onEvent',
  'beforeAgent',
  'afterAgent',
  'beforeModel',
  'afterModel',
  'onModelError',
  'beforeTool',
  'afterTool',
  'onToolError',
];

/** One callback or several; the first that returns a defined value wins. */
export type OneOrMany<F> = F | readonly F[];

/** Runs callbacks in order and returns the first defined result. */
export async function firstResult<A, R>(
  callbacks: OneOrMany<(arg: A) => R> | undefined,
  arg: A,
): Promise<Exclude<Awaited<R>, void> | undefined> {
  if (!callbacks) return undefined;
  if (typeof callbacks === 'function') {
    const result = await callbacks(arg);
    return (result ?? undefined) as Exclude<Awaited<R>, void> | undefined;
  }
  for (const callback of callbacks as readonly ((arg: A) => R)[]) {
    const result = await callback(arg);
    if (result !== undefined && result !== null) return result as Exclude<Awaited<R>, void>;
  }
  return undefined;
}

import type { TokenUsage } from '@ag-ui/core';
import type { Usage } from '@troupe/core';

/**
 * The run's token usage for RUN_FINISHED and RUN_ERROR: one entry per model, as AG-UI keeps models
 * apart. Troupe's `cachedTokens` and `thoughtTokens` are AG-UI's `cachedInputTokens` and
 * `reasoningTokens`; `totalTokens` is input plus output.
 */
export class UsageTally {
  private readonly byModel = new Map<string, Required<Pick<TokenUsage, 'inputTokens' | 'outputTokens'>> & TokenUsage>();

  /** Counts one model call's usage under the model that answered. */
  add(model: string | undefined, usage: Usage): void {
    const key = model ?? '';
    let entry = this.byModel.get(key);
    if (!entry) {
      entry = { ...(model ? { model } : {}), inputTokens: 0, outputTokens: 0 };
      this.byModel.set(key, entry);
    }
    entry.inputTokens += usage.inputTokens;
    entry.outputTokens += usage.outputTokens;
    entry.totalTokens = entry.inputTokens + entry.outputTokens;
    if (usage.cachedTokens !== undefined) entry.cachedInputTokens = (entry.cachedInputTokens ?? 0) + usage.cachedTokens;
    if (usage.thoughtTokens !== undefined) entry.reasoningTokens = (entry.reasoningTokens ?? 0) + usage.thoughtTokens;
  }

  /** The entries, or undefined when the run made no model call (AG-UI omits empty usage). */
  entries(): TokenUsage[] | undefined {
    return this.byModel.size > 0 ? [...this.byModel.values()].map((entry) => ({ ...entry })) : undefined;
  }
}

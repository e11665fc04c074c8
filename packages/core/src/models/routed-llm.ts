import { endsRun } from '../runner/ends-run.js';
import { keyed, routeWithFailover, type RoutingErrorContext } from '../utils/routing.js';
import { BaseLlm } from './base-llm.js';
import type { FailedModelAttempt, LlmRequest, LlmResponse } from './llm-request.js';

/** Picks the key of the model that answers this request; sync or async. */
export type LlmRouter = (
  models: Readonly<Record<string, BaseLlm>>,
  request: LlmRequest,
  errorContext?: RoutingErrorContext,
) => Promise<string | undefined> | string | undefined;

/** Options of {@link RoutedLlm}. */
export interface RoutedLlmOptions {
  /** The models to choose from: a record with explicit keys, or an array keyed by model id. */
  models: Readonly<Record<string, BaseLlm>> | readonly BaseLlm[];
  router: LlmRouter;
}

/**
 * A model that routes each call to one of several models, with the same failover rules as
 * RoutedAgent: a model that fails before its first chunk lets the router choose again. Responses
 * say which model answered (`LlmResponse.model`, recorded on the event).
 *
 * @example
 * const model = new RoutedLlm({ models: [primary, backup], router: (_m, _r, error) => (error ? backup.model : primary.model) });
 */
export class RoutedLlm extends BaseLlm {
  readonly models: Readonly<Record<string, BaseLlm>>;
  readonly router: LlmRouter;

  constructor(options: RoutedLlmOptions) {
    const models = keyed('RoutedLlm', options.models, (model) => model.model);
    super(`routed(${Object.keys(models).join('|')})`);
    this.models = Object.freeze(models);
    this.router = options.router;
  }

  async *generateContentAsync(
    request: LlmRequest,
    stream?: boolean,
    abortSignal?: AbortSignal,
  ): AsyncGenerator<LlmResponse> {
    // What failed before the model that answers, so traces can show why a fallback happened.
    const failed: FailedModelAttempt[] = [];
    yield* routeWithFailover<BaseLlm, LlmResponse>({
      owner: this.model,
      candidates: this.models,
      choose: (errorContext) => this.router(this.models, request, errorContext),
      isFatal: (error) => endsRun(error, abortSignal),
      run: async function* (_key, model) {
        const startTime = Date.now();
        let first = true;
        try {
          for await (const response of model.generateContentAsync(request, stream, abortSignal)) {
            let named = response.model ? response : { ...response, model: model.model };
            if (first && failed.length > 0) named = { ...named, failedAttempts: failed.slice() };
            first = false;
            yield named;
          }
        } catch (error) {
          if (first) failed.push({ model: model.model, error, startTime, endTime: Date.now() });
          throw error;
        }
      },
    });
  }
}

/** The model behind `fallbackModels`: the first on every request, then each next one that has not failed. */
export function fallbackChain(models: readonly BaseLlm[]): RoutedLlm {
  const keyedModels: Record<string, BaseLlm> = {};
  models.forEach((model, i) => {
    keyedModels[Object.hasOwn(keyedModels, model.model) ? `${model.model}#${i}` : model.model] = model;
  });
  const order = Object.keys(keyedModels);
  return new RoutedLlm({
    models: keyedModels,
    router: (_models, _request, errorContext) => order.find((key) => !errorContext?.failedKeys.has(key)),
  });
}

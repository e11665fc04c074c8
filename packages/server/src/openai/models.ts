import type { AppRegistry } from '../app-registry.js';
import { HttpError } from '../http-error.js';

/** One model of `GET /v1/models`: an app, as OpenAI describes a model. */
export interface OpenAiModel {
  /** The app's name: what a chat completion names as its `model`. */
  id: string;
  object: 'model';
  /** Seconds since the epoch: when the server started. */
  created: number;
  owned_by: string;
}

/** Who `owned_by` says a model belongs to. */
const OWNER = 'troupe';

/** The server's apps as OpenAI's model list. */
export async function modelList(registry: AppRegistry, created: number) {
  const names = await registry.names();
  return { object: 'list' as const, data: names.map((id) => modelOf(id, created)) };
}

/** One app as a model. */
export function modelOf(id: string, created: number): OpenAiModel {
  return { id, object: 'model', created, owned_by: OWNER };
}

/**
 * The app a request names as its model. One that does not exist is 404 `model_not_found`, as
 * OpenAI answers, naming the models there are; an app that fails to load keeps its own error.
 */
export async function appOfModel(registry: AppRegistry, model: string) {
  try {
    return await registry.runner(model);
  } catch (error) {
    if (!(error instanceof HttpError) || error.code !== 'APP_NOT_FOUND') throw error;
    const names = await registry.names();
    throw new HttpError(
      404,
      'APP_NOT_FOUND',
      `The model '${model}' does not exist: this server's models are its apps (${names.length > 0 ? names.map((n) => `'${n}'`).join(', ') : 'none'}). GET /v1/models lists them.`,
      'model',
    );
  }
}

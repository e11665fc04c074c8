import type { BaseLlm, Content, LlmRequest, LlmResponse } from '@troupe/core';

/** Every response of one model call, in order. */
export async function collect(
  model: Pick<BaseLlm, 'generateContentAsync'>,
  request: LlmRequest,
  stream = false,
  signal?: AbortSignal,
): Promise<LlmResponse[]> {
  const out: LlmResponse[] = [];
  for await (const response of model.generateContentAsync(request, stream, signal)) out.push(response);
  return out;
}

/** Builds requests for `model`: the given config, and by default one user turn saying 'Hi'. */
export function asker(model: string): (config?: LlmRequest['config'], contents?: Content[]) => LlmRequest {
  return (config = {}, contents = [{ role: 'user', parts: [{ text: 'Hi' }] }]) => ({ model, contents, config });
}

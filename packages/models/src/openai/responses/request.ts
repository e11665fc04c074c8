import { ConfigurationError, type Content, type LlmRequest, type Part } from '@troupe/core';
import type {
  ResponseCreateParamsBase,
  ResponseInputContent,
  ResponseInputItem,
  ResponseReasoningItem,
  Tool,
} from 'openai/resources/responses/responses';
import { extraField, normalizeContents } from '../../shared/contents.js';
import { providerOptionsOf } from '../../shared/request-config.js';
import { isStrictCompatible, joinInstructions, schemaInstruction, schemaName } from '../../shared/schema.js';
import { isRecord } from '../../shared/tool-arguments.js';
import { carriedReasoning, REASONING_FIELD } from './reasoning.js';

/**
 * A built-in tool of the Responses API, sent as it is: `{ type: 'web_search' }`,
 * `{ type: 'file_search', vector_store_ids: ['vs_...'] }`, `{ type: 'code_interpreter', container: { type: 'auto' } }`,
 * `{ type: 'image_generation' }`, `{ type: 'mcp', server_label, server_url }`, ... (see OpenAI's
 * Responses API reference for each tool's fields). Function tools are the agent's `tools`, not these.
 */
export interface ResponsesBuiltinTool {
  /** The tool, e.g. `'web_search'`, `'file_search'`, `'code_interpreter'`, `'image_generation'`, `'mcp'`. */
  type: string;
  /** The tool's own fields, under OpenAI's names. */
  [field: string]: unknown;
}

/** How the Responses request is shaped. */
export interface ResponsesRequestSettings {
  structuredOutput: 'native' | 'instruction';
  /** Built-in tools sent with every request, after the function tools. */
  builtinTools: readonly ResponsesBuiltinTool[];
  /** `parallel_tool_calls` when function tools are declared. */
  parallelToolCalls: boolean;
  /** Fields added to every request body. */
  body: Record<string, unknown> | undefined;
}

/** The request body, streaming aside. */
export type ResponsesBody = Omit<ResponseCreateParamsBase, 'stream'>;

/**
 * The Responses API request body for a Troupe request. It is stateless: the whole conversation
 * goes in `input` (the session is the record, so no `previous_response_id`), nothing is stored
 * at OpenAI (`store: false`), and reasoning comes back encrypted so the next request of the same
 * model can carry it.
 */
export function toResponsesRequest(
  request: LlmRequest,
  model: string,
  settings: ResponsesRequestSettings,
): ResponsesBody {
  const { config } = request;
  if (config.stopSequences !== undefined) unsupported('stopSequences', 'has no stop sequences');
  if (config.seed !== undefined) unsupported('seed', 'has no seed');
  const schema = config.responseSchema;
  const native = schema !== undefined && settings.structuredOutput === 'native';
  const instructions = joinInstructions(
    config.systemInstruction,
    schema && !native ? schemaInstruction(schema) : undefined,
  );
  const input = normalizeContents(request.contents).flatMap((content) => toItems(content, model));
  const body: ResponsesBody = { model, input, store: false, include: ['reasoning.encrypted_content'] };
  if (instructions) body.instructions = instructions;
  const tools: Tool[] = (config.tools ?? []).map((tool) => {
    const parameters = tool.parameters ?? { type: 'object', properties: {}, additionalProperties: false };
    return {
      type: 'function',
      name: tool.name,
      description: tool.description,
      parameters,
      // The Responses API makes function tools strict unless told otherwise; a schema that is not
      // strict-compatible would be rejected.
      strict: isStrictCompatible(parameters),
    };
  });
  if (tools.length > 0) body.parallel_tool_calls = settings.parallelToolCalls;
  tools.push(...(settings.builtinTools as unknown as Tool[]));
  if (native && schema) {
    body.text = {
      format: { type: 'json_schema', name: schemaName(schema), schema, strict: isStrictCompatible(schema) },
    };
  }
  if (config.temperature !== undefined) body.temperature = config.temperature;
  if (config.topP !== undefined) body.top_p = config.topP;
  if (config.maxOutputTokens !== undefined) body.max_output_tokens = config.maxOutputTokens;
  const { tools: extraTools, ...fields } = providerOptionsOf(config, 'openai', settings.body);
  // Tools given as provider options are added to the agent's, never in place of them.
  if (extraTools !== undefined) {
    if (!Array.isArray(extraTools) || !extraTools.every(isRecord)) {
      throw new ConfigurationError(
        `openai.responses() got providerOptions.openai.tools = ${JSON.stringify(extraTools)}; it must be a list of Responses API tools such as [{ type: 'web_search' }].`,
      );
    }
    tools.push(...(extraTools as unknown as Tool[]));
  }
  if (tools.length > 0) body.tools = tools;
  Object.assign(body, fields);
  return body;
}

function unsupported(option: string, why: string): never {
  throw new ConfigurationError(
    `openai.responses() cannot send config.${option}: the Responses API ${why}. Remove it from the agent's generateContentConfig, or use openai() (Chat Completions), which sends it.`,
  );
}

function toItems(content: Content, model: string): ResponseInputItem[] {
  if (content.role === 'model') return modelItems(content.parts, model);
  const items: ResponseInputItem[] = [];
  const parts: ResponseInputContent[] = [];
  for (const part of content.parts) {
    if ('functionResponse' in part) {
      items.push({
        type: 'function_call_output',
        call_id: part.functionResponse.id,
        output: JSON.stringify(part.functionResponse.response ?? {}),
      });
    } else {
      const converted = toInputContent(part);
      if (converted) parts.push(converted);
    }
  }
  if (parts.length > 0) {
    const textOnly = parts.every((p) => p.type === 'input_text');
    items.push({
      role: 'user',
      content: textOnly ? parts.map((p) => (p.type === 'input_text' ? p.text : '')).join('\n') : parts,
    });
  }
  return items;
}

/**
 * A model turn as output items: its reasoning (when this model made it) right before the part
 * that carries it, text as assistant messages, calls as `function_call` items.
 */
function modelItems(parts: readonly Part[], model: string): ResponseInputItem[] {
  const items: ResponseInputItem[] = [];
  let text: { role: 'assistant'; content: string } | undefined;
  for (const part of parts) {
    const reasoning: ResponseReasoningItem[] = carriedReasoning(extraField(part, REASONING_FIELD), model);
    if (reasoning.length > 0) {
      items.push(...reasoning);
      text = undefined;
    }
    if ('text' in part) {
      if (!part.text) continue;
      if (text) text.content += part.text;
      else items.push((text = { role: 'assistant', content: part.text }));
    } else if ('functionCall' in part) {
      const { id, name, args } = part.functionCall;
      items.push({ type: 'function_call', call_id: id, name, arguments: JSON.stringify(args ?? {}) });
      text = undefined;
    }
  }
  return items;
}

function toInputContent(part: Part): ResponseInputContent | undefined {
  if ('text' in part) return part.text ? { type: 'input_text', text: part.text } : undefined;
  if (!('inlineData' in part)) return undefined;
  const { mimeType, data } = part.inlineData;
  const url = `data:${mimeType};base64,${data}`;
  if (mimeType.startsWith('image/')) return { type: 'input_image', image_url: url, detail: 'auto' };
  return {
    type: 'input_file',
    file_data: url,
    filename: part.inlineData.displayName ?? `attachment.${mimeType.split('/')[1] ?? 'bin'}`,
  };
}

import type { Content } from '../types.js';

/** A model call as the debug trace routes keep it: what the model was sent, and what it answered. */
export interface ModelCall {
  model: string;
  systemInstruction: string | undefined;
  contents: Content[];
  tools: { name: string; description: string; parameters?: unknown }[];
  /** The other request settings (temperature, response schema...). */
  config: Record<string, unknown>;
  response: { content?: Content; usage?: unknown; finishReason?: string; errorMessage?: string } | undefined;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Reads ADK's span attributes (`gcp.vertex.agent.llm_request`/`llm_response`, JSON text); undefined for a span without a request. */
export function modelCallOf(attributes: Record<string, unknown>): ModelCall | undefined {
  const request = parse(attributes['gcp.vertex.agent.llm_request']);
  if (!isObject(request)) return undefined;
  const response = parse(attributes['gcp.vertex.agent.llm_response']);
  const config = isObject(request.config) ? { ...request.config } : {};
  const systemInstruction = typeof config.systemInstruction === 'string' ? config.systemInstruction : undefined;
  const tools = Array.isArray(config.tools) ? config.tools.filter(isObject) : [];
  delete config.systemInstruction;
  delete config.tools;
  return {
    model: typeof request.model === 'string' ? request.model : '',
    systemInstruction,
    contents: Array.isArray(request.contents) ? (request.contents as Content[]) : [],
    tools: tools.map((tool) => ({
      name: String(tool.name ?? ''),
      description: String(tool.description ?? ''),
      ...(tool.parameters === undefined ? {} : { parameters: tool.parameters }),
    })),
    config,
    response: isObject(response) ? response : undefined,
  };
}

function parse(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return undefined;
  }
}

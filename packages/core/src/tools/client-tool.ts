import { ConfigurationError } from '../errors.js';
import type { InterruptInfo } from '../events/event.js';
import type { FunctionDeclaration } from '../models/llm-request.js';
import { BaseTool } from './base-tool.js';
import type { ToolContext } from './tool-context.js';

/** What marks the input request of a client tool call: its `payload`. */
const CLIENT_TOOL_PAYLOAD = Object.freeze({ clientTool: true });

/**
 * A tool that the caller of the run executes, not the server: a web page's "frontend tool". The
 * model sees it like any other tool; when it calls it, the call pauses the run with an input
 * interrupt (`kind: 'input'`, `payload: { clientTool: true }`, the call's name and arguments), and
 * `runner.resume` with the tool's result as the answer continues the same invocation, the result
 * becoming that call's function response. Made by the runner from `runConfig.clientTools`.
 */
export class ClientTool extends BaseTool {
  private readonly declaration: FunctionDeclaration;

  constructor(declaration: FunctionDeclaration) {
    super({ name: declaration.name, description: declaration.description });
    this.declaration = {
      name: declaration.name,
      description: declaration.description,
      parameters: declaration.parameters ?? { type: 'object', properties: {} },
    };
  }

  getDeclaration(): Promise<FunctionDeclaration> {
    return Promise.resolve(this.declaration);
  }

  // The arguments are not validated here: the caller runs the tool and checks them itself.
  async runAsync(args: Record<string, unknown>, ctx: ToolContext): Promise<unknown> {
    return ctx.requestInput({
      message: `Run the client tool '${this.name}' with ${JSON.stringify(args)} and answer with its result.`,
      payload: CLIENT_TOOL_PAYLOAD,
    });
  }
}

/** True when an interrupt asks the caller to run a client tool (see {@link ClientTool}); its answer is the tool's result. */
export function isClientToolInterrupt(interrupt: InterruptInfo): boolean {
  const payload = interrupt.payload as { clientTool?: unknown } | undefined;
  return interrupt.kind === 'input' && typeof payload === 'object' && payload !== null && payload.clientTool === true;
}

/** The client tools of `runConfig.clientTools`, checked: valid names, one declaration per name. */
export function clientToolsOf(declarations: unknown): readonly ClientTool[] {
  if (declarations === undefined) return [];
  if (!Array.isArray(declarations)) {
    throw new ConfigurationError(
      `runConfig.clientTools must be an array of tool declarations { name, description, parameters? }; got ${JSON.stringify(declarations)}.`,
    );
  }
  const tools: ClientTool[] = [];
  const names = new Set<string>();
  for (const declaration of declarations as unknown[]) {
    const { name, description, parameters } = (declaration ?? {}) as Partial<FunctionDeclaration>;
    if (
      typeof description !== 'string' ||
      (parameters !== undefined && (typeof parameters !== 'object' || parameters === null || Array.isArray(parameters)))
    ) {
      throw new ConfigurationError(
        `runConfig.clientTools has ${JSON.stringify(declaration)?.slice(0, 200)}; each entry needs a name, a description string and optionally parameters as a JSON Schema object.`,
      );
    }
    if (names.has(name!))
      throw new ConfigurationError(
        `runConfig.clientTools declares '${name}' twice. Give each client tool a unique name.`,
      );
    names.add(name!);
    tools.push(new ClientTool({ name: name!, description, ...(parameters ? { parameters } : {}) }));
  }
  return tools;
}

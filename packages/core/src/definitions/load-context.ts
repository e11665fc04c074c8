import { readFile } from 'node:fs/promises';
import { extname } from 'node:path';
import { ConfigurationError } from '../errors.js';
import { isBaseLlm, type BaseLlm } from '../models/base-llm.js';
import { resolveModel } from '../models/registry.js';
import { isZodSchema, validate, type Schema } from '../utils/schema.js';
import { isPlainObject } from '../tools/base-tool.js';
import { AgentDefinitionError, type DefinitionLocation } from './definition-error.js';
import { parseDocument, type MapNode, type YamlModule } from './parse-document.js';

/** What one `loadAgent` call shares while it reads a tree of definition files. */
export class LoadContext {
  private yaml: Promise<YamlModule> | undefined;
  private readonly documents = new Map<string, Promise<MapNode>>();
  private readonly resolvedModels = new Map<string, BaseLlm>();
  private resolvedDefault: BaseLlm | undefined;

  constructor(
    private readonly models: Readonly<Record<string, BaseLlm>>,
    private readonly defaultModelOption: string | BaseLlm | undefined,
  ) {}

  /** A definition file, read and parsed once per load. */
  parse(file: string, at: DefinitionLocation | undefined): Promise<MapNode> {
    let document = this.documents.get(file);
    if (!document) {
      document = this.read(file, at);
      this.documents.set(file, document);
    }
    return document;
  }

  /** The model for a `model:` value: an instance from the `models` option, else the registry's. */
  model(name: string, at: DefinitionLocation): BaseLlm {
    if (Object.hasOwn(this.models, name)) return this.models[name]!;
    let model = this.resolvedModels.get(name);
    if (!model) {
      try {
        model = resolveModel(name);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new AgentDefinitionError(
          at,
          `model '${name}' cannot be used: ${reason} Or give loadAgent an instance for it: { models: { '${name}': model } }.`,
          { cause: error },
        );
      }
      this.resolvedModels.set(name, model);
    }
    return model;
  }

  /** The `model` option of loadAgent, for LlmAgents that name none and inherit none. */
  defaultModel(at: DefinitionLocation): BaseLlm | undefined {
    const option = this.defaultModelOption;
    if (option === undefined || typeof option !== 'string') return option;
    this.resolvedDefault ??= this.model(option, at);
    return this.resolvedDefault;
  }

  /** Checks that a schema is a zod schema or a valid JSON Schema (compiling it). */
  async checkSchema(schema: unknown, at: DefinitionLocation, what: string): Promise<Schema> {
    if (isZodSchema(schema)) return schema;
    if (!isPlainObject(schema))
      throw new AgentDefinitionError(
        at,
        `${what} must be a JSON Schema object such as { type: object, properties: { ... } }; got ${typeof schema}.`,
      );
    try {
      await validate(schema, {});
    } catch (error) {
      // The core message repeats the schema; the location already says which one it is.
      const reason = (error instanceof Error ? error.message : String(error)).replace(
        /^Invalid JSON Schema \{.*?\}: /s,
        '',
      );
      throw new AgentDefinitionError(at, `${what} is not a valid JSON Schema: ${reason}`, { cause: error });
    }
    return schema;
  }

  private async read(file: string, at: DefinitionLocation | undefined): Promise<MapNode> {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch (error) {
      throw new AgentDefinitionError(at ?? { file }, `cannot read ${file}: ${(error as Error).message}.`, {
        cause: error,
      });
    }
    this.yaml ??= import('yaml');
    return parseDocument(await this.yaml, text, file, extname(file).toLowerCase() === '.json' ? 'json' : 'yaml');
  }
}

/** Checks loadAgent's `model` and `models` options. */
export function checkModelOptions(model: unknown, models: unknown): Readonly<Record<string, BaseLlm>> {
  if (model !== undefined && typeof model !== 'string' && !isBaseLlm(model)) {
    throw new ConfigurationError(
      `loadAgent's 'model' option must be a model string such as 'gemini-2.5-flash' or a BaseLlm instance; got ${typeof model}.`,
    );
  }
  if (models === undefined) return {};
  if (typeof models !== 'object' || models === null || Array.isArray(models)) {
    throw new ConfigurationError(
      `loadAgent's 'models' option must map the names used in 'model:' fields to BaseLlm instances, e.g. { models: { fast: myModel } }; got ${Array.isArray(models) ? 'a list' : typeof models}.`,
    );
  }
  for (const [name, value] of Object.entries(models)) {
    if (!isBaseLlm(value))
      throw new ConfigurationError(
        `loadAgent's 'models' option maps '${name}' to something that is not a model; give it a BaseLlm instance.`,
      );
  }
  return models as Record<string, BaseLlm>;
}

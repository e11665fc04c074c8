import type { Guardrail } from '../guardrails/guardrail.js';
import type { Scope } from './agent-plan.js';
import { AgentDefinitionError, displayPath } from './definition-error.js';
import { importModule, moduleValue, nameFromFile, resolveEntryFile } from './load-module.js';
import { describeNode } from './parse-document.js';
import type { MapReader } from './read-values.js';

const WANTED =
  'a guardrail { name, check(ctx, value) => { tripwire, info? }, blocking? }, or a check function (named after the file)';

/**
 * `input_guardrails` / `output_guardrails` of an LlmAgent definition: paths of .js/.ts modules whose
 * default export is a guardrail object, or a check function, which becomes a guardrail named after
 * the file (`no-homework.js` → `no_homework`).
 */
export async function readGuardrails(
  r: MapReader,
  key: 'inputGuardrails' | 'outputGuardrails',
  scope: Scope,
): Promise<Guardrail<never, never>[] | undefined> {
  const items = r.list(key, '[./no-homework.js]');
  if (!items) return undefined;
  const guardrails: Guardrail<never, never>[] = [];
  for (const { node, at } of items) {
    if (node.kind !== 'scalar' || typeof node.value !== 'string' || node.value === '') {
      throw new AgentDefinitionError(
        at,
        `a guardrail entry is the path of a .js/.ts module exporting ${WANTED}; got ${describeNode(node)}.`,
      );
    }
    const { file, kind } = await resolveEntryFile(node.value, scope.file, at);
    if (kind !== 'module')
      throw new AgentDefinitionError(
        at,
        `'${node.value}' is not a module; name a .js/.ts file whose default export is ${WANTED}.`,
      );
    const value = moduleValue(await importModule(file, at), file, at, WANTED);
    if (typeof value === 'function') {
      guardrails.push({ name: nameFromFile(file), check: value as Guardrail<never, never>['check'] });
    } else if (
      typeof value === 'object' &&
      value !== null &&
      typeof (value as { check?: unknown }).check === 'function'
    ) {
      guardrails.push(value as Guardrail<never, never>);
    } else {
      throw new AgentDefinitionError(
        at,
        `the default export of ${displayPath(file)} is not a guardrail; export ${WANTED}.`,
      );
    }
  }
  const names = new Set<string>();
  guardrails.forEach((guardrail, i) => {
    if (names.has(guardrail.name))
      throw new AgentDefinitionError(
        items[i]!.at,
        `two ${r.shown(key)} are named '${guardrail.name}'. Give each guardrail a unique name (in its module, or by its file name).`,
      );
    names.add(guardrail.name);
  });
  return guardrails;
}

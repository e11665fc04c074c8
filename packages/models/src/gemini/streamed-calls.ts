import type { FunctionCall, PartialArg } from '@google/genai';
import type { PartExtras, ResponseBuilder } from '../shared/response-builder.js';
import { MALFORMED_ARGUMENTS_KEY } from '../shared/tool-arguments.js';
import { defineMember, parseJsonPath, setAt, valueAt } from './json-path.js';

interface OpenCall {
  id: string | undefined;
  name: string;
  args: Record<string, unknown>;
  /** Fragments whose path names no single place; the call keeps them under MALFORMED_ARGUMENTS_KEY. */
  unplaced: PartialArg[];
  extras: PartExtras | undefined;
}

/**
 * Assembles function calls whose arguments Gemini streams in pieces
 * (`toolConfig.functionCallingConfig.streamFunctionCallArguments`, Vertex AI with Gemini 3). A
 * call spans several parts: the first names it (and gives its id) with `willContinue: true`, the
 * next carry `partialArgs` (a value at a JSON path; a string value is a delta appended to what the
 * path already holds), and the call is complete at the first part without `willContinue`. Calls
 * stream one after another; a complete call goes into the builder.
 */
export class StreamedCallAssembler {
  private open: OpenCall | undefined;

  /** Whether `call` is a piece of a streamed call (its start, a fragment or its end). */
  takes(call: FunctionCall): boolean {
    return this.open !== undefined || call.willContinue === true || (call.partialArgs?.length ?? 0) > 0;
  }

  /** Adds one piece; `extras` are the part's own fields to keep (its thought signature). */
  add(call: FunctionCall, extras: PartExtras | undefined, builder: ResponseBuilder): void {
    if (this.open && startsAnother(this.open, call)) this.flushInto(builder);
    const open = (this.open ??= { id: undefined, name: '', args: {}, unplaced: [], extras: undefined });
    if (call.name) open.name = call.name;
    if (call.id) open.id = call.id;
    if (extras && !open.extras) open.extras = extras;
    // A piece may also carry whole arguments; the fragments after it add to them.
    for (const [key, value] of Object.entries(call.args ?? {})) defineMember(open.args, key, value);
    for (const fragment of call.partialArgs ?? [])
      if (!applyFragment(open.args, fragment)) open.unplaced.push(fragment);
    if (!call.willContinue) this.flushInto(builder);
  }

  /** Moves the call being assembled, if any, into the builder (at the end of the turn). */
  flushInto(builder: ResponseBuilder): void {
    const open = this.open;
    this.open = undefined;
    // Fragments without a name cannot be called; Gemini always names a call in its first piece.
    if (!open?.name) return;
    // Like malformed JSON elsewhere: the tool's argument check rejects the call and the model sees why.
    if (open.unplaced.length > 0) defineMember(open.args, MALFORMED_ARGUMENTS_KEY, JSON.stringify(open.unplaced));
    builder.addCall({ id: open.id, name: open.name, args: open.args }, open.extras);
  }
}

/** A piece naming another function, or giving another id, begins a new call. */
function startsAnother(open: OpenCall, call: FunctionCall): boolean {
  return (!!call.name && !!open.name && call.name !== open.name) || (!!call.id && !!open.id && call.id !== open.id);
}

/** Writes one fragment into `args`; false when its path names no single place inside them. */
function applyFragment(args: Record<string, unknown>, fragment: PartialArg): boolean {
  const steps = fragment.jsonPath === undefined ? undefined : parseJsonPath(fragment.jsonPath);
  if (!steps || steps.length === 0) return false;
  if (fragment.stringValue !== undefined) {
    const sofar = valueAt(args, steps);
    setAt(args, steps, typeof sofar === 'string' ? sofar + fragment.stringValue : fragment.stringValue);
  } else if (fragment.numberValue !== undefined) {
    setAt(args, steps, fragment.numberValue);
  } else if (fragment.boolValue !== undefined) {
    setAt(args, steps, fragment.boolValue);
  } else if (fragment.nullValue !== undefined) {
    setAt(args, steps, null);
  }
  return true;
}

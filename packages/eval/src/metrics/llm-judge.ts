import { type BaseLlm, contentText, type LlmRequest, resolveModel } from '@troupe/core';
import { JudgeError } from '../errors.js';

/** A judge's verdict on one response. */
export interface JudgeVerdict {
  /** 0..1, 1 meaning the response says what the reference says. */
  score: number;
  /** The judge's one-sentence reason (or why no score could be read from its reply). */
  reason: string;
}

/** What the judge is shown for one turn. */
export interface JudgeInput {
  /** The user's message. */
  user: string;
  /** The expected (reference) response. */
  expected: string;
  /** The agent's final response. */
  actual: string;
  abortSignal?: AbortSignal;
}

/** The judge's system instruction. */
export const JUDGE_INSTRUCTION = `You grade an AI agent's answer against a reference answer.
Score how well the agent's answer conveys the same facts and outcome as the reference: 1 when it is
equivalent (wording may differ), 0 when it is wrong, contradicts the reference or misses its point,
and a value in between for a partly correct answer. Ignore style and length unless they change the meaning.
Reply with only a JSON object: {"score": <number from 0 to 1>, "reason": "<one sentence>"}`;

/**
 * Scores responses with a model. The reply is read leniently: a JSON object (also inside a code
 * fence or prose) with `score` (or `rating`), a `score: 0.8` line, `8/10`, `80%`, or a
 * valid/invalid verdict; scores above 1 are read on a 10- or 100-point scale. A reply with no score
 * is asked once more; if it still has none, the verdict is 0 with the reply as the reason.
 *
 * @example
 * const judge = new LlmJudge('gemini-2.5-flash');
 * const { score, reason } = await judge.judge({ user: 'Capital of France?', expected: 'Paris', actual: 'It is Paris.' });
 */
export class LlmJudge {
  readonly model: BaseLlm;

  /** @param model a model instance, or a model string resolved through core's registry. */
  constructor(model: BaseLlm | string) {
    this.model = typeof model === 'string' ? resolveModel(model) : model;
  }

  /** Scores one response against its reference. Rejects with `JudgeError` when the model fails. */
  async judge(input: JudgeInput): Promise<JudgeVerdict> {
    const prompt = judgePrompt(input);
    const first = await this.ask([prompt], input.abortSignal);
    const verdict = parseJudgeReply(first);
    if (verdict) return verdict;
    const second = await this.ask(
      [
        prompt,
        { role: 'model', text: first },
        { role: 'user', text: 'Reply with only the JSON object {"score": <0..1>, "reason": "..."}.' },
      ],
      input.abortSignal,
    );
    return (
      parseJudgeReply(second) ?? {
        score: 0,
        reason: `The judge's reply had no score: ${JSON.stringify(second.slice(0, 300))}`,
      }
    );
  }

  private async ask(
    turns: { role: 'user' | 'model'; text: string }[],
    abortSignal: AbortSignal | undefined,
  ): Promise<string> {
    const request: LlmRequest = {
      model: this.model.model,
      contents: turns.map((turn) => ({ role: turn.role, parts: [{ text: turn.text }] })),
      config: { systemInstruction: JUDGE_INSTRUCTION, temperature: 0 },
    };
    let text = '';
    try {
      for await (const response of this.model.generateContentAsync(request, false, abortSignal)) {
        if (response.errorCode !== undefined || response.errorMessage !== undefined)
          throw new Error(response.errorMessage ?? response.errorCode);
        if (!response.partial && response.content) text = contentText(response.content);
      }
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new JudgeError(
        `The judge model '${this.model.model}' failed: ${reason}. Check the judge model's configuration (key, name), or leave out the judge.`,
        { cause: error },
      );
    }
    return text;
  }
}

function judgePrompt(input: JudgeInput): { role: 'user'; text: string } {
  return {
    role: 'user',
    text: [
      `User request:\n${input.user}`,
      `Reference answer:\n${input.expected}`,
      `Agent's answer:\n${input.actual || '(no answer)'}`,
    ].join('\n\n'),
  };
}

const SCORE_KEYS = ['score', 'rating', 'grade', 'verdict'];
const REASON_KEYS = ['reason', 'reasoning', 'rationale', 'explanation', 'justification'];
const VERDICT_WORDS: Readonly<Record<string, number>> = {
  valid: 1,
  pass: 1,
  passed: 1,
  yes: 1,
  correct: 1,
  invalid: 0,
  fail: 0,
  failed: 0,
  no: 0,
  incorrect: 0,
};

/** Reads a score (0..1) and reason from a judge's reply; undefined when it holds no score. */
export function parseJudgeReply(reply: string): JudgeVerdict | undefined {
  for (const candidate of jsonObjects(reply)) {
    const verdict = fromObject(candidate);
    if (verdict) return verdict;
  }
  const keyed = /\b(?:score|rating|grade)\b["'*\s]*[:=]\s*["']?(-?\d+(?:\.\d+)?)\s*(%|\/\s*(\d+(?:\.\d+)?))?/i.exec(
    reply,
  );
  const fraction = keyed ?? /(-?\d+(?:\.\d+)?)\s*(%|\/\s*(\d+(?:\.\d+)?))/.exec(reply);
  if (fraction) {
    const score = normalise(
      Number(fraction[1]),
      fraction[2] === '%' ? 100 : fraction[3] !== undefined ? Number(fraction[3]) : undefined,
    );
    if (score !== undefined) return { score, reason: reasonFromText(reply) };
  }
  return undefined;
}

function fromObject(value: Record<string, unknown>): JudgeVerdict | undefined {
  const entries = Object.entries(value).map(([key, v]) => [key.toLowerCase(), v] as const);
  const reasonEntry = entries.find(([key]) => REASON_KEYS.includes(key));
  const reason = typeof reasonEntry?.[1] === 'string' ? reasonEntry[1] : '';
  for (const key of SCORE_KEYS) {
    const raw = entries.find(([k]) => k === key)?.[1];
    const score = scoreOf(raw);
    if (score !== undefined) return { score, reason };
  }
  return undefined;
}

function scoreOf(raw: unknown): number | undefined {
  if (typeof raw === 'number') return normalise(raw, undefined);
  if (typeof raw === 'boolean') return raw ? 1 : 0;
  if (typeof raw !== 'string') return undefined;
  const word = VERDICT_WORDS[raw.trim().toLowerCase()];
  if (word !== undefined) return word;
  const match = /^\s*(-?\d+(?:\.\d+)?)\s*(%|\/\s*(\d+(?:\.\d+)?))?\s*$/.exec(raw);
  if (!match) return undefined;
  return normalise(Number(match[1]), match[2] === '%' ? 100 : match[3] !== undefined ? Number(match[3]) : undefined);
}

/** Brings a score to 0..1: divides by its scale (given, or guessed as 10 or 100 for values above 1) and clamps. */
function normalise(value: number, scale: number | undefined): number | undefined {
  if (!Number.isFinite(value)) return undefined;
  let score = value;
  if (scale !== undefined && scale > 0) score = value / scale;
  else if (value > 1 && value <= 10) score = value / 10;
  else if (value > 10 && value <= 100) score = value / 100;
  return Math.min(1, Math.max(0, score));
}

/** The `{...}` substrings of a text that parse as JSON objects, outermost first. */
function jsonObjects(text: string): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  for (let start = text.indexOf('{'); start >= 0; start = text.indexOf('{', start + 1)) {
    let depth = 0;
    let inString = false;
    for (let i = start; i < text.length; i++) {
      const char = text[i];
      if (inString) {
        if (char === '\\') i++;
        else if (char === '"') inString = false;
        continue;
      }
      if (char === '"') inString = true;
      else if (char === '{') depth++;
      else if (char === '}' && --depth === 0) {
        try {
          const parsed: unknown = JSON.parse(text.slice(start, i + 1));
          if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed))
            found.push(parsed as Record<string, unknown>);
        } catch {
          // Not JSON (prose with braces): try the next opening brace.
        }
        break;
      }
    }
  }
  return found;
}

function reasonFromText(reply: string): string {
  const labelled = /\b(?:reason|reasoning|rationale|explanation)\b["'*\s]*[:=]\s*["']?([^\n"]+)/i.exec(reply);
  return (labelled?.[1] ?? reply).trim().slice(0, 500);
}

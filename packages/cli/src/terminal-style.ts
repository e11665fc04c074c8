import type { TextOutput } from './io.js';

/** Environment variables, as `process.env` holds them. */
export type Environment = Readonly<Record<string, string | undefined>>;

/** What a piece of transcript text is, so a terminal can colour it. */
export type TextRole = 'user' | 'agent' | 'tool' | 'error' | 'approval' | 'muted';

/** Colours transcript text by role; the plain style returns the text unchanged. */
export interface TextStyle {
  /** True when the style adds escape sequences. */
  readonly colored: boolean;
  /** `text` in the colour of `role`; for `'agent'`, `name` picks one of several colours so agents differ. */
  paint(role: TextRole, text: string, name?: string): string;
}

/** Adds no escape sequences: for pipes, files, and NO_COLOR. */
export const PLAIN_STYLE: TextStyle = Object.freeze({ colored: false, paint: (_role: TextRole, text: string) => text });

/**
 * Whether to colour what goes to `stream`, by the conventions terminals and tools share:
 * `NO_COLOR` (any non-empty value) turns colour off, `FORCE_COLOR` turns it on (`0` or `false`
 * turn it off), otherwise only a terminal gets colour.
 */
export function colorWanted(stream: TextOutput, env: Environment = process.env): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force.toLowerCase() !== 'false';
  return stream.isTTY === true;
}

/**
 * The style for `stream`: ANSI colours when {@link colorWanted}, else {@link PLAIN_STYLE}. Each
 * call makes a style of its own, whose agents get their colours in order of appearance.
 */
export function styleFor(stream: TextOutput, env: Environment = process.env): TextStyle {
  return colorWanted(stream, env) ? ansiStyle() : PLAIN_STYLE;
}

const RESET = '\u001b[0m';
const ROLE_CODES: Record<Exclude<TextRole, 'agent'>, string> = {
  user: '\u001b[1;32m', // bold green
  tool: '\u001b[36m', // cyan
  error: '\u001b[1;31m', // bold red
  approval: '\u001b[1;33m', // bold yellow
  muted: '\u001b[2m', // dim
};
// Colours the other roles do not use, given to agents in the order they first speak: the first
// six agents of a transcript never share one (a hash of the name made two of six collide).
const AGENT_CODES = ['\u001b[1;34m', '\u001b[1;35m', '\u001b[1;94m', '\u001b[1;95m', '\u001b[1;96m', '\u001b[1;92m'];

function ansiStyle(): TextStyle {
  const agents = new Map<string, string>();
  const agentCode = (name: string): string => {
    let code = agents.get(name);
    if (code === undefined) {
      code = AGENT_CODES[agents.size % AGENT_CODES.length]!;
      agents.set(name, code);
    }
    return code;
  };
  return Object.freeze({
    colored: true,
    paint(role: TextRole, text: string, name?: string): string {
      if (text === '') return text;
      const code = role === 'agent' ? agentCode(name ?? text) : ROLE_CODES[role];
      return `${code}${text}${RESET}`;
    },
  });
}

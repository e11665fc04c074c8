/**
 * Rewords an error of node's `parseArgs`, which names the option but not the command: an unknown
 * option gets the list of options `command` takes; other messages become one sentence.
 */
export function parseArgsErrorMessage(
  error: unknown,
  command: string,
  options: Readonly<Record<string, unknown>>,
): string {
  const code = (error as { code?: unknown }).code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const option = /'([^']+)'/.exec(message)?.[1] ?? message;
    const known = Object.keys(options)
      .map((name) => `--${name}`)
      .join(', ');
    return `Unknown option '${option}' for '${command}' (it takes ${known}).`;
  }
  const oneLine = message.replace(/\s*\n\s*/g, ' ').trim();
  return oneLine.endsWith('.') ? oneLine : `${oneLine}.`;
}

/** `troupe --help`. */
export const MAIN_USAGE = `Usage: troupe <command> [options]

Commands:
  run <agent file or dir>   Chat with an agent in the terminal, or run one message (--input)

Options:
  -h, --help                Show this help (troupe run --help: the options of run)
  -v, --version             Print the version

Examples:
  troupe run agents/weather
  troupe run agent.ts --model openai/gpt-4o-mini --input "Weather in Paris?"
`;

/** `troupe run --help`. */
export const RUN_USAGE = `Usage: troupe run <agent file or dir> [options]

Loads the agent exported as 'rootAgent' (or the default export) from a .ts or .js module, or from
<dir>/agent.ts or <dir>/agent.js, and chats with it. Type 'exit' or 'quit' (or press Ctrl-D) to leave.
TypeScript is compiled by tsx without a tsconfig; set TSX_TSCONFIG_PATH to use one.

Options:
  --model <model>     Default model for agents that set none, e.g. openai/gpt-4o-mini
                      (without it: the offline demo model, which is not an LLM)
  --input <text>      Run this one message and exit (exit code 0 when the run completed)
  --json              Print each stored event as one JSON line on stdout, nothing else
  --session <id>      Session id to use (created if missing; sessions are kept in memory for now)
  --user <id>         User id (default: user)
  -h, --help          Show this help

Exit codes: 0 completed, 1 failed, 2 bad usage, 3 run limit hit, 4 waiting for approval, 130 cancelled.
`;

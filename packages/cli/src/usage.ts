import { compactionUsage } from './commands/compaction-flags.js';

/** `troupe --help`. */
export const MAIN_USAGE = `Usage: troupe <command> [options]

Commands:
  run <agent file or dir>   Chat with an agent in the terminal, or run one message (--input)
  web <agents dir>          Serve the browser dev UI and the HTTP API (http://127.0.0.1:8000/)
  api <agents dir>          Serve the HTTP API only (ADK's API server routes)
  mcp <agents dir>          Serve the apps as an MCP server over stdio (each app a tool)
  worker <agents dir>       Run the API's background runs, handed over through Redis (--redis)
  eval <agent> <evalset>    Score an agent against an eval set (tool calls and responses)
  create <name>             Create a new app from a template (single, pipeline, team)

Options:
  -h, --help                Show this help (troupe run --help: the options of run)
  -v, --version             Print the version

Examples:
  troupe run agents/weather
  troupe run agent.ts --model openai/gpt-4o-mini --input "Weather in Paris?"
  troupe run examples/fan-out "Plan a weekend in Lisbon"
  troupe run examples/team-yaml --input-json '{"sections": [{"title": "Intro"}]}'
  troupe web examples
  troupe api agents --redis redis://127.0.0.1:6379 & troupe worker agents --redis redis://127.0.0.1:6379
  troupe eval agents/weather evals/weather.evalset.json
  troupe create my-agents --template team
`;

/** `troupe run --help`. */
export const RUN_USAGE = `Usage: troupe run <agent file or dir> [message] [options]

Loads the agent exported as 'rootAgent' (or the default export) from a .ts or .js module, or from
<dir>/agent.ts or <dir>/agent.js, and chats with it. Type 'exit' or 'quit' (or press Ctrl-D) to leave.
When a tool asks for approval or input, the question is asked at the prompt (y/N, or a line of JSON).
TypeScript is compiled by tsx without a tsconfig; set TSX_TSCONFIG_PATH to use one.

Sessions are kept in SQLite at .troupe/troupe.db under the current directory; a one-shot run prints
'session: <id>' on stderr, and --session <id> continues that session later.

Options:
  --model <model>     Default model for agents that set none, e.g. openai/gpt-4o-mini
                      (without it: the offline demo model, which is not an LLM)
  --input <text>      Run this one message and exit (exit code 0 when the run completed);
                      the same as a message after the agent. Parsed as JSON when the agent
                      has an inputSchema
  --input-json <json> Run with this structured input (a JSON object, checked against the
                      agent's inputSchema) and exit
  --attach <file>     Send this file with the --input message (repeatable); the run saves it
                      as an artifact of the session, and the message keeps its name
  --json              Print each stored event (the user's too) as one JSON line on stdout,
                      nothing else; timestamps in seconds, as the HTTP API sends them
  --session <id>      Session to continue (a new one with that id if missing, said on stderr;
                      default: a new session)
  --user <id>         User id (default: user)
  --db <path>         SQLite file for sessions (default: .troupe/troupe.db)
  --memory            Keep sessions in memory only, for throwaway runs (gone on exit)
${compactionUsage(22)}  -h, --help          Show this help

Ctrl-C cancels the running turn (a second Ctrl-C quits at once). Colour: on at a terminal, off
when piped or with NO_COLOR; FORCE_COLOR=1 forces it.

Exit codes: 0 completed, 1 failed, 2 bad usage, 3 run limit hit, 4 waiting for approval,
5 blocked by a guardrail, 130 cancelled.
`;

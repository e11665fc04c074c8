#!/usr/bin/env node
// Registers the model providers (openai/…, openai-responses/…, gemini-…, anthropic/…, ollama/…) for --model and agent files.
import '@troupe/models';
import { registerToolEntry } from '@troupe/core';
// Registers `mcp:` entries in the tools of agent files; registered again below with a logger.
import { createMcpToolEntry } from '@troupe/mcp';
import { runCli } from './cli.js';
import { ExitCode } from './exit-codes.js';
import { processIo } from './io.js';

// MCP servers' stderr is never stored in sessions: the terminal is where it is seen.
registerToolEntry(
  'mcp',
  createMcpToolEntry({
    onStderr: ({ server, tools, line }) =>
      process.stderr.write(
        `troupe: MCP server ${server}${tools.length > 0 ? ` (calling ${tools.join(', ')})` : ''}: ${line}\n`,
      ),
  }),
);

const code = await runCli(process.argv.slice(2), processIo());
process.exitCode = code;
// A cancelled run is over for the user: agent code that ignores cancellation (a pending timer, a
// request without the abort signal) does not keep the command waiting.
if (code === ExitCode.cancelled) process.exit(code);

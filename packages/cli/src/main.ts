#!/usr/bin/env node
// Registers the model providers (openai/…, gemini-…, anthropic/…, ollama/…) for --model and agent files.
import '@troupe/models';
// Registers `mcp:` entries in the tools of agent files.
import '@troupe/mcp';
import { runCli } from './cli.js';
import { processIo } from './io.js';

process.exitCode = await runCli(process.argv.slice(2), processIo());

#!/usr/bin/env node
// Registers the model providers (openai/…, gemini-…, anthropic/…, ollama/…) for --model and agent files.
import '@troupe/models';
import { runCli } from './cli.js';
import { processIo } from './io.js';

process.exitCode = await runCli(process.argv.slice(2), processIo());

#!/usr/bin/env node
// The installed `troupe` command. It exists before the build (so npm links it on a fresh
// install) and runs the compiled CLI.
await import('../dist/main.js');

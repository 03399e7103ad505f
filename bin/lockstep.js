#!/usr/bin/env node
// The installed entry point: everything lives in the compiled CLI.
import { main } from "../dist/server/src/cli/main.js";

process.exitCode = await main(process.argv.slice(2));

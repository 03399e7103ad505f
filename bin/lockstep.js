#!/usr/bin/env node
// The installed entry point: the CLI bundled into a few files, so start-up reads little.
import { main } from "../dist/bundle/main.js";

process.exitCode = await main(process.argv.slice(2));

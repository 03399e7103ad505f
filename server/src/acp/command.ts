// `lockstep acp`: lockstep's agent over the Agent Client Protocol on stdio, for
// editors that host agents (Zed, JetBrains, CodeCompanion, avante, agent-shell).
// stdout is the protocol channel; anything else goes to stderr.
import { parseArgs } from "node:util";
import type { SettingKey } from "../config/load-settings.js";
import { serveAcp } from "./agent.js";
import { acpStdio } from "./stdio-stream.js";

export const ACP_USAGE = `lockstep acp [--provider gemini|openai] [--model NAME] [--base-url URL] [--approval ask|auto] [--replay FILE] [--debug]`;

export async function runAcpCommand(args: string[], stderr: (s: string) => void): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      provider: { type: "string" },
      model: { type: "string" },
      "base-url": { type: "string" },
      approval: { type: "string" },
      replay: { type: "string" },
      debug: { type: "boolean" },
    },
  });
  if (positionals.length > 0)
    throw new Error(
      `acp takes no positional arguments (got ${positionals.join(" ")}); the editor starts it and speaks ACP on stdin`,
    );
  const flags: Partial<Record<SettingKey, unknown>> = {
    ...(values.provider !== undefined ? { provider: values.provider } : {}),
    ...(values.model !== undefined ? { model: values.model } : {}),
    ...(values["base-url"] !== undefined ? { baseUrl: values["base-url"] } : {}),
    ...(values.approval !== undefined ? { approval: values.approval } : {}),
    ...(values.replay !== undefined ? { replay: values.replay } : {}),
    ...(values.debug ? { debug: true } : {}),
  };
  const stdio = acpStdio(process.stdin, process.stdout, stderr);
  const { ended } = serveAcp(stdio.stream, {
    env: process.env,
    flags,
    debug: values.debug === true || process.env["LOCKSTEP_DEBUG"] === "true",
    stderr,
  });
  // The editor closing stdin is the one quiet end; any other is said, with a non-zero exit.
  const why = (await ended) ?? stdio.failure();
  if (why === undefined) return 0;
  stderr(
    `lockstep acp: the connection ended: ${why}. Every session was closed; the editor may start lockstep again.\n`,
  );
  return 1;
}

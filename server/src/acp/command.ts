// `lockstep acp`: lockstep's agent over the Agent Client Protocol on stdio, for
// editors that host agents (Zed, JetBrains, CodeCompanion, avante, agent-shell).
// stdout is the protocol channel; anything else goes to stderr.
import { Readable, Writable } from "node:stream";
import { parseArgs } from "node:util";
import { ndJsonStream } from "@agentclientprotocol/sdk";
import type { SettingKey } from "../config/load-settings.js";
import { serveAcp } from "./agent.js";

export const ACP_USAGE = `lockstep acp [--provider gemini|openai] [--model NAME] [--base-url URL] [--approval ask|auto] [--replay FILE] [--debug]`;

export async function runAcpCommand(args: string[], stderr: (s: string) => void): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { provider: { type: "string" }, model: { type: "string" }, "base-url": { type: "string" }, approval: { type: "string" }, replay: { type: "string" }, debug: { type: "boolean" } },
  });
  if (positionals.length > 0) throw new Error(`acp takes no positional arguments (got ${positionals.join(" ")}); the editor starts it and speaks ACP on stdin`);
  const flags: Partial<Record<SettingKey, unknown>> = {
    ...(values.provider !== undefined ? { provider: values.provider } : {}),
    ...(values.model !== undefined ? { model: values.model } : {}),
    ...(values["base-url"] !== undefined ? { baseUrl: values["base-url"] } : {}),
    ...(values.approval !== undefined ? { approval: values.approval } : {}),
    ...(values.replay !== undefined ? { replay: values.replay } : {}),
    ...(values.debug ? { debug: true } : {}),
  };
  const stream = ndJsonStream(Writable.toWeb(process.stdout), Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>);
  const { ended } = serveAcp(stream, { env: process.env, flags, debug: values.debug === true || process.env["LOCKSTEP_DEBUG"] === "true", stderr });
  await ended;
  return 0;
}

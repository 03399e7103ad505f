// `lockstep config`: the settings `lockstep ask` would use here, and where each came
// from (default, the user file, the project file, a LOCKSTEP_ variable, a flag). The API
// key's variable is named with whether it is set, never its value. Exit 1 when a
// setting is in error (what `lockstep ask` would refuse), else 0. The folder's trust is shown,
// and each key of the project file that was not applied.
import { stat } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import {
  envVariableOf,
  loadSettings,
  modelSourcesOf,
  originLabel,
  type ProjectTrust,
  type SettingKey,
} from "../config/load-settings.js";
import { mixedModelSources } from "../config/model-sources.js";
import { waitingForTrust } from "../config/project-keys.js";
import { defaultInUse } from "./config-defaults.js";
import { settingsSchema } from "../config/settings.js";
import { findSandbox } from "../commands/index.js";
import { searchEngine } from "../workspace/walk/ripgrep.js";
import { UsageError, type Io } from "./io.js";
import { mcpReport, probeMcpServers } from "./mcp-report.js";
import { SETTINGS_OPTIONS, settingsFlags } from "./settings-flags.js";
import { oneLine, terminalSafe } from "./terminal-text.js";

import { shownUrl } from "../config/shown-url.js";

/** A value as shown: a URL without its credentials, query values or fragment. */
const shownValue = (value: unknown): unknown =>
  typeof value === "string" ? shownUrl(value) : (value ?? null);

/** The folder's trust in one line: by which record, or how to give it, and what waits for it. */
function trustLine(trust: ProjectTrust): string {
  if (trust.trusted)
    return `trusted${trust.by !== trust.folder ? ` (through ${trust.by})` : ""}: the project file applies in full, but for replay, transcript, sessionsDir`;
  const waiting = waitingForTrust(trust.ignored);
  return `not trusted: the project file sets only the keys an untrusted folder may${waiting.length > 0 ? `; ignored: ${waiting.join(", ")}` : ""} (lockstep trust ${trust.folder})`;
}

export async function configCommand(args: string[], io: Io): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { root: { type: "string" }, json: { type: "boolean" }, ...SETTINGS_OPTIONS },
  });
  if (positionals.length > 0)
    throw new UsageError(`config takes no words (got '${positionals[0]}'); it prints the settings in force`);
  const root = path.resolve(values.root ?? process.cwd());
  if (
    !(await stat(root).then(
      (st) => st.isDirectory(),
      () => false,
    ))
  )
    throw new UsageError(`--root ${values.root ?? root}: no such directory; give the workspace's directory`);
  const loaded = loadSettings({ root, ...settingsFlags(values) });
  // Provider, baseUrl and model set in different places are said, never shown as fine.
  const mixed = mixedModelSources(
    { ...loaded.settings, baseUrl: shownValue(loaded.settings.baseUrl) ?? undefined },
    modelSourcesOf(loaded.origins),
  );
  if (mixed !== undefined) loaded.problems.push({ severity: "warning", key: "model", message: mixed });
  const keys = Object.keys(settingsSchema.shape) as SettingKey[];
  const failed = loaded.problems.some((p) => p.severity === "error");
  const probe = await findSandbox();
  const sandbox =
    probe.kind === "available"
      ? { available: true, name: probe.backend.name }
      : { available: false, reason: probe.reason };
  // The user's MCP servers are started here, each bounded by its timeout, to say which ones fail and why.
  const mcp = await probeMcpServers(root);
  if (values.json) {
    const settings = Object.fromEntries(
      keys.map((k) => {
        // A key with no value of its own: what is used in its place.
        const inUse = defaultInUse(k, loaded.settings, process.env);
        const value = { value: shownValue(loaded.settings[k]), from: originLabel(loaded.origins[k]) };
        return [
          k,
          { ...value, origin: loaded.origins[k], ...(inUse !== undefined ? { in_use: inUse } : {}) },
        ];
      }),
    );
    const apiKey = {
      variables: loaded.key.variables,
      set: loaded.key.found ?? null,
      needed: loaded.key.needed,
    };
    const { folder, trusted, by, ignored } = loaded.trust;
    const trust = { folder, trusted, by: by ?? null, ignored };
    const mcpData = { mcp_servers: mcp.servers, mcp_problems: mcp.problems };
    const data = {
      root,
      files: loaded.files,
      trust,
      settings,
      api_key: apiKey,
      sandbox,
      search: searchEngine(),
      problems: loaded.problems,
      ...mcpData,
    };
    io.stdout(JSON.stringify({ ok: !failed, data }) + "\n");
    return failed ? 1 : 0;
  }
  const exists = async (file: string): Promise<string> =>
    (await stat(file).then(
      () => true,
      () => false,
    ))
      ? file
      : `${file} (none)`;
  const out: string[] = [
    `Settings for ${root}`,
    "Each source over the one before: default < user file < project file < LOCKSTEP_* variables < flags.",
    `  user file     ${oneLine(await exists(loaded.files.user))}`,
    `  project file  ${oneLine(await exists(loaded.files.project))}`,
    `  trust         ${oneLine(trustLine(loaded.trust))}`,
    "",
  ];
  const width = Math.max(...keys.map((k) => k.length));
  for (const key of keys) {
    const value = loaded.settings[key];
    // A value holding a newline or an escape sequence shows it escaped: it cannot print a line the user never set.
    const shown = oneLine(
      value === undefined
        ? (defaultInUse(key, loaded.settings, process.env) ?? "none")
        : typeof value === "string"
          ? shownUrl(value)
          : JSON.stringify(value),
    );
    out.push(`  ${key.padEnd(width)}  ${shown.padEnd(28)}  ${originLabel(loaded.origins[key])}`);
  }
  const { variables, found, needed } = loaded.key;
  out.push(
    "",
    `  API key: ${found !== undefined ? `read from ${found} (set)` : needed ? `${variables.join(" or ")}: not set` : `none needed (${variables.join(" or ")} not set)`}`,
  );
  out.push(
    `  Sandbox for commands: ${sandbox.available ? `${sandbox.name} (root writable, .git read-only, ${loaded.settings.sandboxNetwork ? "network allowed" : "no network"})` : `none: ${sandbox.reason ?? ""}`}`,
  );
  out.push(`  Search: ${oneLine(searchEngine())}`);
  out.push(
    `  Any key can also be set as LOCKSTEP_ + its name in upper snake case, e.g. ${envVariableOf("baseUrl")}.`,
  );
  out.push(...mcpReport(mcp).map(oneLine));
  for (const p of loaded.problems)
    out.push(`${p.severity === "error" ? "✘" : "!"} ${terminalSafe(p.message)}`);
  io.stdout(out.join("\n") + "\n");
  return failed ? 1 : 0;
}

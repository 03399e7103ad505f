// `mcpServers` in the user's settings file: the MCP servers the agent may use, in the shape
// Claude Code's `.mcp.json` and gemini-cli's `mcpServers` already have (a name → a command
// for stdio, or a url for Streamable HTTP). Each entry is validated on its own: a bad one
// is named and left out, the others stay. `${VAR}` is read from the environment, so no
// secret is written in the file. Knows nothing of MCP itself: mcp/ connects what this reads.
//
// The user's file is read always. A project's `.lockstep.json` and `.mcp.json` could name a
// command to run: `projectMcpServers` reads them only for a folder the user trusts, never
// with `trust` (a repository cannot loosen approval); trust is config/trust.ts's.
import path from "node:path";
import * as z from "zod";
import { projectFilePath, readSettingsFile, userFilePath } from "./settings-file.js";

/** The key in the settings file; read here, not by the per-key settings readers. */
export const MCP_SERVERS_KEY = "mcpServers";

const NAME = /^[A-Za-z0-9_-]{1,32}$/;
const MAX_SERVERS = 50;
const text = (max: number) => z.string().max(max, `at most ${max} characters`);

const common = {
  enabled: z.boolean().default(true),
  /** Approval `auto` covers this server's tools only with this set, and only in the user's file. */
  trust: z.boolean().default(false),
  /** Milliseconds connecting (and listing tools) may take. */
  timeout: z.number().int().min(500).max(600_000).optional(),
};

const stdioSchema = z.strictObject({
  type: z.literal("stdio").optional(),
  command: text(4096).min(1, "must name a program"),
  args: z.array(text(4096)).max(256).default([]),
  env: z
    .record(
      z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, "environment names are letters, digits and _"),
      text(16_384),
    )
    .default({}),
  cwd: text(4096).optional(),
  ...common,
});

const httpSchema = z.strictObject({
  type: z.enum(["http", "streamable-http"]).optional(),
  url: text(4096),
  headers: z.record(text(256), text(16_384)).default({}),
  ...common,
});

export type McpServerConfig =
  | ({ name: string; transport: "stdio" } & Omit<z.output<typeof stdioSchema>, "type">)
  | ({ name: string; transport: "http" } & Omit<z.output<typeof httpSchema>, "type">);

export interface McpServersRead {
  servers: McpServerConfig[];
  /** Each entry left out, and why, naming the entry and the file. */
  problems: string[];
}

/** `${VAR}` (and `${VAR:-default}`) from the environment; an unset variable is a problem, not an empty secret. */
function expand(value: string, env: NodeJS.ProcessEnv, missing: Set<string>): string {
  return value.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
    (_, name: string, fallback: string | undefined) => {
      const found = env[name];
      if (found !== undefined && found !== "") return found;
      if (fallback !== undefined) return fallback;
      missing.add(name);
      return "";
    },
  );
}

function expandAll(config: McpServerConfig, env: NodeJS.ProcessEnv, missing: Set<string>): McpServerConfig {
  const x = (s: string): string => expand(s, env, missing);
  const map = (r: Record<string, string>): Record<string, string> =>
    Object.fromEntries(Object.entries(r).map(([k, v]) => [k, x(v)]));
  if (config.transport === "stdio") {
    return {
      ...config,
      command: x(config.command),
      args: config.args.map(x),
      env: map(config.env),
      ...(config.cwd !== undefined ? { cwd: x(config.cwd) } : {}),
    };
  }
  return { ...config, url: x(config.url), headers: map(config.headers) };
}

/** Reads the value of `mcpServers` as written in `file`; every entry judged on its own. */
export function readMcpServers(raw: unknown, file: string, env: NodeJS.ProcessEnv): McpServersRead {
  const where = `"${MCP_SERVERS_KEY}" in ${file}`;
  if (raw === undefined) return { servers: [], problems: [] };
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) {
    return {
      servers: [],
      problems: [`${where}: must be an object of name → {command, args, env} or {url, headers}`],
    };
  }
  const servers: McpServerConfig[] = [];
  const problems: string[] = [];
  const entries = Object.entries(raw);
  if (entries.length > MAX_SERVERS)
    problems.push(`${where}: ${entries.length} servers; only the first ${MAX_SERVERS} are read`);
  for (const [name, value] of entries.slice(0, MAX_SERVERS)) {
    const shown = JSON.stringify(name.length > 40 ? `${name.slice(0, 40)}…` : name);
    if (!NAME.test(name)) {
      problems.push(`${where}: server ${shown} left out: a name is 1 to 32 letters, digits, _ or -`);
      continue;
    }
    const isHttp = typeof value === "object" && value !== null && "url" in value;
    const parsed = (isHttp ? httpSchema : stdioSchema).safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const at = issue && issue.path.length > 0 ? ` (${issue.path.join(".")})` : "";
      const hint = isHttp ? "{url, headers?}" : "{command, args?, env?, cwd?} or {url, headers?}";
      problems.push(
        `${where}: server ${shown} left out${at}: ${issue?.message ?? "invalid"}; expected ${hint}`,
      );
      continue;
    }
    const rest: Record<string, unknown> = { ...parsed.data };
    delete rest["type"];
    const config = (
      isHttp ? { name, transport: "http", ...rest } : { name, transport: "stdio", ...rest }
    ) as McpServerConfig;
    const missing = new Set<string>();
    const expanded = expandAll(config, env, missing);
    if (missing.size > 0) {
      problems.push(
        `${where}: server ${shown} left out: ${[...missing].map((v) => `\${${v}}`).join(", ")} not set in the environment; export it first`,
      );
      continue;
    }
    if (expanded.transport === "http" && !/^https?:\/\/[^\s]+$/i.test(expanded.url)) {
      problems.push(
        `${where}: server ${shown} left out: url must be http:// or https:// (got ${JSON.stringify(expanded.url.slice(0, 80))})`,
      );
      continue;
    }
    if (expanded.enabled) servers.push(expanded);
  }
  return { servers, problems };
}

export const userFileOf = (env: NodeJS.ProcessEnv): string => userFilePath(env);

/** The user's servers: `mcpServers` of the user settings file ($XDG_CONFIG_HOME/lockstep/config.json). */
export function userMcpServers(env: NodeJS.ProcessEnv): McpServersRead & { file: string } {
  const file = userFilePath(env);
  const read = readSettingsFile(file);
  if (read.kind !== "read") return { file, servers: [], problems: [] };
  return { file, ...readMcpServers(read.values[MCP_SERVERS_KEY], file, env) };
}

/** Claude Code's project file, read in a trusted folder beside `.lockstep.json`. */
export const MCP_JSON = ".mcp.json";

/**
 * A project's servers: `mcpServers` of its `.lockstep.json`, then of its `.mcp.json`, read only when
 * the folder is trusted (an untrusted one is said, not read); `trust` is never taken from them.
 */
export function projectMcpServers(
  root: string,
  trusted: boolean,
  env: NodeJS.ProcessEnv,
): { label: string; servers: McpServerConfig[]; problems: string[] }[] {
  const out: { label: string; servers: McpServerConfig[]; problems: string[] }[] = [];
  for (const file of [projectFilePath(root), path.join(root, MCP_JSON)]) {
    // Read inside the root only, bounded, like the project's settings.
    const read = readSettingsFile(file, root);
    if (read.kind === "absent") continue;
    if (read.kind === "invalid") {
      out.push({ label: file, servers: [], problems: [read.message] });
      continue;
    }
    if (read.values[MCP_SERVERS_KEY] === undefined) continue;
    if (!trusted) {
      out.push({
        label: file,
        servers: [],
        problems: [
          `"${MCP_SERVERS_KEY}" in ${file}: not started, the folder is not trusted; run \`lockstep trust ${root}\` to use them`,
        ],
      });
      continue;
    }
    const got = readMcpServers(read.values[MCP_SERVERS_KEY], file, env);
    out.push({
      label: file,
      servers: got.servers.map((s) => ({ ...s, trust: false })),
      problems: got.problems,
    });
  }
  return out;
}

/**
 * Servers from several sources, the first source winning on a name (an ACP client's over the
 * settings'); a name given twice is said, so a user is not surprised which one runs.
 */
export function mergeMcpServers(
  sources: readonly { label: string; servers: readonly McpServerConfig[] }[],
): McpServersRead {
  const seen = new Map<string, string>();
  const servers: McpServerConfig[] = [];
  const problems: string[] = [];
  for (const { label, servers: list } of sources) {
    for (const server of list) {
      const first = seen.get(server.name);
      if (first !== undefined) {
        problems.push(
          `MCP server "${server.name}" is named by ${first} and by ${label}: the one from ${first} is used`,
        );
        continue;
      }
      seen.set(server.name, label);
      servers.push(server);
    }
  }
  return { servers, problems };
}

/** A server to connect and where it was configured (a file's path, or `client`). */
export interface ConfiguredServer {
  config: McpServerConfig;
  from: string;
}

/**
 * Every server in force for a root: a door's own (an ACP client's), the user's, and a trusted
 * project's, the first winning on a name; with every problem to name. Nothing is started here.
 */
export function configuredMcpServers(input: {
  root: string;
  trusted: boolean;
  env: NodeJS.ProcessEnv;
  door?: readonly ConfiguredServer[];
}): { servers: ConfiguredServer[]; problems: string[] } {
  const door = input.door ?? [];
  const user = userMcpServers(input.env);
  const project = projectMcpServers(input.root, input.trusted, input.env);
  const merged = mergeMcpServers([
    { label: "the client", servers: door.map((s) => s.config) },
    { label: user.file, servers: user.servers },
    ...project,
  ]);
  // Where each kept server came from: the first source that names it, as the merge kept it.
  const from = new Map<string, string>();
  const named = [
    ...door.map((s) => [s.config.name, s.from] as const),
    ...user.servers.map((s) => [s.name, user.file] as const),
    ...project.flatMap((p) => p.servers.map((s) => [s.name, p.label] as const)),
  ];
  for (const [name, label] of named) if (!from.has(name)) from.set(name, label);
  const servers = merged.servers.map((config) => ({ config, from: from.get(config.name) ?? user.file }));
  return { servers, problems: [...user.problems, ...project.flatMap((p) => p.problems), ...merged.problems] };
}

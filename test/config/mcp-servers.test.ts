// `mcpServers` as the user writes it: each entry judged on its own, `${VAR}` from the
// environment, names bounded, a name given twice said once.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  configuredMcpServers,
  mergeMcpServers,
  readMcpServers,
} from "../../server/src/config/mcp-servers.js";

const FILE = "/home/u/.config/lockstep/config.json";
const read = (raw: unknown, env: NodeJS.ProcessEnv = {}) => readMcpServers(raw, FILE, env);

describe("mcpServers in the user file", () => {
  it("reads stdio and Streamable HTTP entries in Claude Code's and gemini-cli's shape", () => {
    const { servers, problems } = read(
      {
        git: { command: "uvx", args: ["mcp-server-git"], env: { TOKEN: "${GIT_TOKEN}" }, cwd: "/tmp" },
        docs: {
          type: "http",
          url: "https://docs.example/mcp",
          headers: { Authorization: "Bearer ${DOCS_KEY}" },
          trust: true,
        },
        plain: { type: "stdio", command: "srv" },
        later: { command: "x", enabled: false },
      },
      { GIT_TOKEN: "g-1", DOCS_KEY: "d-2" },
    );
    expect(problems).toEqual([]);
    expect(servers).toEqual([
      {
        name: "git",
        transport: "stdio",
        command: "uvx",
        args: ["mcp-server-git"],
        env: { TOKEN: "g-1" },
        cwd: "/tmp",
        enabled: true,
        trust: false,
      },
      {
        name: "docs",
        transport: "http",
        url: "https://docs.example/mcp",
        headers: { Authorization: "Bearer d-2" },
        enabled: true,
        trust: true,
      },
      { name: "plain", transport: "stdio", command: "srv", args: [], env: {}, enabled: true, trust: false },
    ]);
  });

  it.each([
    [{ "has space": { command: "x" } }, 'server "has space" left out: a name is 1 to 32 letters'],
    [{ ["n".repeat(300)]: { command: "x" } }, "a name is 1 to 32 letters"],
    [{ a: { command: "" } }, 'server "a" left out (command): must name a program'],
    [{ a: { command: "x", extra: 1 } }, 'server "a" left out'],
    [{ a: { url: "ftp://x" } }, "url must be http:// or https://"],
    [{ a: { url: "http://x", headers: { k: "${NOPE}" } } }, "${NOPE} not set in the environment"],
    [{ a: { command: "x", timeout: 5 } }, 'server "a" left out (timeout)'],
    [{ a: "npx server" }, 'server "a" left out'],
    [[{ command: "x" }], "must be an object of name →"],
  ])("names a bad entry and keeps the others: %j", (entry, message) => {
    const raw = Array.isArray(entry) ? entry : { ...entry, good: { command: "ok" } };
    const { servers, problems } = read(raw);
    expect(problems.join("\n")).toContain(message);
    expect(problems.join("\n")).toContain(FILE);
    expect(servers.map((s) => s.name)).toEqual(Array.isArray(entry) ? [] : ["good"]);
  });

  it("uses a ${VAR:-default} when the variable is unset", () => {
    expect(read({ a: { url: "http://127.0.0.1:${PORT:-8080}/mcp" } }).servers[0]).toMatchObject({
      url: "http://127.0.0.1:8080/mcp",
    });
  });

  it("keeps the first source's server on a name given twice, and says so", () => {
    const one = read({ a: { command: "client" } }).servers;
    const two = read({ a: { command: "file" }, b: { command: "b" } }).servers;
    const merged = mergeMcpServers([
      { label: "the client", servers: one },
      { label: FILE, servers: two },
    ]);
    expect(merged.servers.map((s) => [s.name, s.transport === "stdio" ? s.command : ""])).toEqual([
      ["a", "client"],
      ["b", "b"],
    ]);
    expect(merged.problems).toEqual([
      `MCP server "a" is named by the client and by ${FILE}: the one from the client is used`,
    ]);
  });
});

describe("a project's MCP servers", () => {
  it("are not read in an untrusted folder, and are read (never trusted) in a trusted one; the user's win on a name", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "lockstep-mcp-project-"));
    try {
      const root = path.join(dir, "repo");
      mkdirSync(root);
      mkdirSync(path.join(dir, "config", "lockstep"), { recursive: true });
      writeFileSync(
        path.join(dir, "config", "lockstep", "config.json"),
        JSON.stringify({ mcpServers: { git: { command: "user-git" } } }),
      );
      writeFileSync(
        path.join(root, ".lockstep.json"),
        JSON.stringify({
          mcpServers: { git: { command: "repo-git" }, lint: { command: "repo-lint", trust: true } },
        }),
      );
      writeFileSync(
        path.join(root, ".mcp.json"),
        JSON.stringify({
          mcpServers: { lint: { command: "other" }, docs: { type: "http", url: "http://127.0.0.1:9/mcp" } },
        }),
      );
      const env = { XDG_CONFIG_HOME: path.join(dir, "config"), HOME: dir };
      const untrusted = configuredMcpServers({ root, trusted: false, env });
      expect(untrusted.servers.map((s) => s.config.name)).toEqual(["git"]);
      expect(untrusted.problems.join("\n")).toContain(
        `"mcpServers" in ${path.join(root, ".lockstep.json")}: not started, the folder is not trusted`,
      );
      expect(untrusted.problems.join("\n")).toContain(
        `"mcpServers" in ${path.join(root, ".mcp.json")}: not started`,
      );
      const trusted = configuredMcpServers({ root, trusted: true, env });
      expect(
        trusted.servers.map((s) => [
          s.config.name,
          s.from,
          s.config.transport === "stdio" ? s.config.command : s.config.url,
          s.config.trust,
        ]),
      ).toEqual([
        ["git", path.join(dir, "config", "lockstep", "config.json"), "user-git", false],
        ["lint", path.join(root, ".lockstep.json"), "repo-lint", false],
        ["docs", path.join(root, ".mcp.json"), "http://127.0.0.1:9/mcp", false],
      ]);
      expect(trusted.problems).toHaveLength(2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  it("a trusted repository's .mcp.json that is /dev/zero, a FIFO, a link out of the root or 10,000 deep is named, never read whole or waited on", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "lockstep-mcp-hostile-"));
    try {
      const env = { XDG_CONFIG_HOME: path.join(dir, "config"), HOME: dir };
      writeFileSync(
        path.join(dir, "secret.json"),
        JSON.stringify({ mcpServers: { s: { command: "outside" } } }),
      );
      const cases: [string, (file: string) => void, RegExp][] = [
        ["zero", (f) => symlinkSync("/dev/zero", f), /\.mcp\.json/],
        ["fifo", (f) => execFileSync("mkfifo", [f]), /\.mcp\.json/],
        ["out", (f) => symlinkSync(path.join(dir, "secret.json"), f), /\.mcp\.json/],
        ["deep", (f) => writeFileSync(f, "[".repeat(10_000) + "]".repeat(10_000)), /nested deeper than/],
      ];
      for (const [name, make, said] of cases) {
        const root = path.join(dir, name);
        mkdirSync(root);
        make(path.join(root, ".mcp.json"));
        const got = configuredMcpServers({ root, trusted: true, env });
        expect(got.servers, name).toEqual([]);
        expect(got.problems.join("\n"), name).toMatch(said);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

// `mcpServers` as the user writes it: each entry judged on its own, `${VAR}` from the
// environment, names bounded, a name given twice said once.
import { describe, expect, it } from "vitest";
import { mergeMcpServers, readMcpServers } from "../../server/src/config/mcp-servers.js";

const FILE = "/home/u/.config/lockstep/config.json";
const read = (raw: unknown, env: NodeJS.ProcessEnv = {}) => readMcpServers(raw, FILE, env);

describe("mcpServers in the user file", () => {
  it("reads stdio and Streamable HTTP entries in Claude Code's and gemini-cli's shape", () => {
    const { servers, problems } = read({
      git: { command: "uvx", args: ["mcp-server-git"], env: { TOKEN: "${GIT_TOKEN}" }, cwd: "/tmp" },
      docs: { type: "http", url: "https://docs.example/mcp", headers: { Authorization: "Bearer ${DOCS_KEY}" }, trust: true },
      plain: { type: "stdio", command: "srv" },
      later: { command: "x", enabled: false },
    }, { GIT_TOKEN: "g-1", DOCS_KEY: "d-2" });
    expect(problems).toEqual([]);
    expect(servers).toEqual([
      { name: "git", transport: "stdio", command: "uvx", args: ["mcp-server-git"], env: { TOKEN: "g-1" }, cwd: "/tmp", enabled: true, trust: false },
      { name: "docs", transport: "http", url: "https://docs.example/mcp", headers: { Authorization: "Bearer d-2" }, enabled: true, trust: true },
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
    expect(read({ a: { url: "http://127.0.0.1:${PORT:-8080}/mcp" } }).servers[0]).toMatchObject({ url: "http://127.0.0.1:8080/mcp" });
  });

  it("keeps the first source's server on a name given twice, and says so", () => {
    const one = read({ a: { command: "client" } }).servers;
    const two = read({ a: { command: "file" }, b: { command: "b" } }).servers;
    const merged = mergeMcpServers([{ label: "the client", servers: one }, { label: FILE, servers: two }]);
    expect(merged.servers.map((s) => [s.name, s.transport === "stdio" ? s.command : ""])).toEqual([["a", "client"], ["b", "b"]]);
    expect(merged.problems).toEqual([`MCP server "a" is named by the client and by ${FILE}: the one from the client is used`]);
  });
});

// Static checks of the Helix client, which has no headless mode to drive: the languages.toml
// parses, declares the server as the package's bin, appends lockstep after each language's
// own servers, sends only settings the server knows, and the README's commands exist.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { commandNames } from "../../server/src/lsp/commands.js";
import { readSettings } from "../../server/src/config/settings.js";

const root = new URL("../../", import.meta.url);
const read = (path: string): string => readFileSync(new URL(path, root), "utf8");

// ---------------------------------------------------------------------------------------
// A small TOML reader: tables, arrays of tables, dotted keys, basic and literal strings,
// integers, floats, booleans, arrays and inline tables. Enough for Helix's languages.toml;
// no multi-line strings or dates. Redefining a key or a table is an error, as in TOML.

type TomlValue = string | number | boolean | TomlValue[] | TomlTable;
interface TomlTable {
  [key: string]: TomlValue;
}

const isTable = (v: TomlValue | undefined): v is TomlTable =>
  typeof v === "object" && v !== null && !Array.isArray(v);

function parseToml(text: string): TomlTable {
  const rootTable: TomlTable = {};
  const headers = new Set<string>();
  let i = 0;

  const fail = (message: string): never => {
    const line = text.slice(0, i).split("\n").length;
    throw new Error(`TOML line ${line}: ${message}`);
  };
  const skipSpaces = (): void => {
    while (text[i] === " " || text[i] === "\t") i++;
  };
  const skipComment = (): void => {
    if (text[i] === "#") while (i < text.length && text[i] !== "\n") i++;
  };
  const skipBlank = (): void => {
    for (;;) {
      skipSpaces();
      skipComment();
      if (text[i] === "\n" || text[i] === "\r") i++;
      else return;
    }
  };
  const expect = (token: string): void => {
    if (!text.startsWith(token, i)) fail(`expected ${JSON.stringify(token)}`);
    i += token.length;
  };
  const endOfLine = (): void => {
    skipSpaces();
    skipComment();
    if (i < text.length && text[i] !== "\n" && text[i] !== "\r") fail("expected the end of the line");
  };

  const basicString = (): string => {
    if (text.startsWith('"""', i)) fail("multi-line strings are not supported here");
    i++;
    let out = "";
    const escapes: Record<string, string> = { '"': '"', "\\": "\\", b: "\b", t: "\t", n: "\n", f: "\f", r: "\r" };
    while (text[i] !== '"') {
      const c = text[i];
      if (c === undefined || c === "\n") fail("unterminated string");
      if (c === "\\") {
        const e = text[i + 1] ?? "";
        if (e === "u" || e === "U") {
          const width = e === "u" ? 4 : 8;
          out += String.fromCodePoint(parseInt(text.slice(i + 2, i + 2 + width), 16));
          i += 2 + width;
          continue;
        }
        const mapped = escapes[e];
        if (mapped === undefined) fail(`bad escape \\${e}`);
        out += mapped;
        i += 2;
        continue;
      }
      out += c;
      i++;
    }
    i++;
    return out;
  };
  const literalString = (): string => {
    const end = text.indexOf("'", i + 1);
    if (end < 0 || text.slice(i + 1, end).includes("\n")) fail("unterminated literal string");
    const value = text.slice(i + 1, end);
    i = end + 1;
    return value;
  };

  const key = (): string[] => {
    const parts: string[] = [];
    for (;;) {
      skipSpaces();
      const bare = /^[A-Za-z0-9_-]+/.exec(text.slice(i));
      if (text[i] === '"') parts.push(basicString());
      else if (text[i] === "'") parts.push(literalString());
      else if (bare) {
        parts.push(bare[0]);
        i += bare[0].length;
      } else fail("expected a key");
      skipSpaces();
      if (text[i] !== ".") return parts;
      i++;
    }
  };

  // Assign `value` at the dotted `path` below `table`, creating tables on the way.
  const assign = (table: TomlTable, path: string[], value: TomlValue): void => {
    let target = table;
    path.forEach((part, n) => {
      if (n === path.length - 1) {
        if (part in target) fail(`key \`${path.join(".")}\` is defined twice`);
        target[part] = value;
        return;
      }
      const next = target[part] ?? (target[part] = {});
      if (!isTable(next)) fail(`\`${part}\` is not a table`);
      target = next as TomlTable;
    });
  };

  const value = (): TomlValue => {
    const c = text[i];
    if (c === '"') return basicString();
    if (c === "'") return literalString();
    if (c === "[") {
      i++;
      const items: TomlValue[] = [];
      for (;;) {
        skipBlank();
        if (text[i] === "]") break;
        items.push(value());
        skipBlank();
        if (text[i] === ",") i++;
        else if (text[i] !== "]") fail("expected , or ] in an array");
      }
      i++;
      return items;
    }
    if (c === "{") {
      i++;
      const table: TomlTable = {};
      skipSpaces();
      while (text[i] !== "}") {
        const path = key();
        expect("=");
        skipSpaces();
        assign(table, path, value());
        skipSpaces();
        if (text[i] === ",") i++;
        else if (text[i] !== "}") fail("expected , or } in an inline table");
        skipSpaces();
      }
      i++;
      return table;
    }
    for (const literal of ["true", "false"]) {
      if (text.startsWith(literal, i)) {
        i += literal.length;
        return literal === "true";
      }
    }
    const number = /^[+-]?\d[\d_]*(\.\d[\d_]*)?([eE][+-]?\d+)?/.exec(text.slice(i));
    if (!number) return fail("expected a value");
    i += number[0].length;
    return Number(number[0].replaceAll("_", ""));
  };

  // The table a header names; with `arrayItem`, a new element of the array of tables.
  const header = (path: string[], arrayItem: boolean): TomlTable => {
    let table = rootTable;
    path.forEach((part, n) => {
      const last = n === path.length - 1;
      if (last && arrayItem) {
        const list = table[part] ?? (table[part] = []);
        if (!Array.isArray(list)) fail(`\`${part}\` is not an array of tables`);
        const item: TomlTable = {};
        (list as TomlValue[]).push(item);
        table = item;
        return;
      }
      let next = table[part] ?? (table[part] = {});
      if (Array.isArray(next)) next = next[next.length - 1] ?? fail(`\`${part}\` is empty`);
      if (!isTable(next)) fail(`\`${part}\` is not a table`);
      table = next as TomlTable;
    });
    return table;
  };

  let current = rootTable;
  for (;;) {
    skipBlank();
    if (i >= text.length) return rootTable;
    if (text.startsWith("[[", i)) {
      i += 2;
      const path = key();
      expect("]]");
      current = header(path, true);
    } else if (text[i] === "[") {
      i++;
      const path = key();
      expect("]");
      const name = path.join(".");
      if (headers.has(name)) fail(`table [${name}] is defined twice`);
      headers.add(name);
      current = header(path, false);
    } else {
      const path = key();
      expect("=");
      skipSpaces();
      assign(current, path, value());
    }
    endOfLine();
  }
}

// ---------------------------------------------------------------------------------------

const languagesToml = read("clients/helix/languages.toml");
const readme = read("clients/helix/README.md");
const config = parseToml(languagesToml);

function table(value: TomlValue | undefined, what: string): TomlTable {
  if (!isTable(value)) throw new Error(`${what} is not a table`);
  return value;
}

function lockstepServer(toml: TomlTable): TomlTable {
  return table(table(toml["language-server"], "[language-server]")["lockstep"], "[language-server.lockstep]");
}

function languages(toml: TomlTable): TomlTable[] {
  const list = toml["language"];
  if (!Array.isArray(list)) throw new Error("no [[language]] entries");
  return list.map((entry, n) => table(entry, `[[language]] #${n + 1}`));
}

describe("the TOML reader", () => {
  it.each([
    ['a = "x\\ty"\nb.c = 1_000\n[t]\nd = [1, 2,\n  3, # note\n]\n', { a: "x\ty", b: { c: 1000 }, t: { d: [1, 2, 3] } }],
    ["[[l]]\nn = 'one'\n[[l]]\nn = { k = true, \"q\" = -1.5 }\n", { l: [{ n: "one" }, { n: { k: true, q: -1.5 } }] }],
    ['[s.t]\nx = 1\n[s]\ny = "\\u00e9"\n', { s: { t: { x: 1 }, y: "é" } }],
  ])("reads %j", (text, expected) => {
    expect(parseToml(text)).toEqual(expected);
  });

  it.each(["a = 1\na = 2\n", "[t]\n[t]\n", 'a = "open\n', "a = 1 b = 2\n", "a = [1 2]\n"])("rejects %j", (text) => {
    expect(() => parseToml(text)).toThrow(/TOML line/);
  });
});

describe("clients/helix/languages.toml", () => {
  it("starts the package's bin over stdio", () => {
    const server = lockstepServer(config);
    const pkg: unknown = JSON.parse(read("package.json"));
    const bins = (pkg as { bin?: Record<string, string> }).bin ?? {};
    expect(server["command"]).toBe("lockstep");
    expect(Object.keys(bins)).toContain("lockstep");
    expect(server["args"]).toEqual(["--stdio"]);
    expect(typeof server["timeout"]).toBe("number");
  });

  it("sends only settings the server reads, with valid values, and names a transcript", () => {
    const settings = table(lockstepServer(config)["config"], "[language-server.lockstep.config]");
    expect(readSettings(settings).problems).toEqual([]);
    expect(settings["transcript"]).toEqual(expect.stringMatching(/\.md$/));
  });

  it("appends lockstep after each language's own servers", () => {
    const entries = languages(config);
    for (const entry of entries) {
      const servers = entry["language-servers"];
      expect(Object.keys(entry).sort(), `keys of ${String(entry["name"])}`).toEqual(["language-servers", "name"]);
      expect(Array.isArray(servers)).toBe(true);
      const list = servers as TomlValue[];
      expect(list.at(-1), String(entry["name"])).toBe("lockstep");
      expect(list.length, String(entry["name"])).toBeGreaterThan(1);
      expect(new Set(list).size).toBe(list.length);
      expect(list.every((s) => typeof s === "string")).toBe(true);
    }
    const names = entries.map((e) => e["name"]);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(expect.arrayContaining(["typescript", "tsx", "javascript", "jsx", "python", "rust", "go", "markdown"]));
  });
});

describe("clients/helix/README.md", () => {
  const commands = new Set(commandNames());

  it("names only commands the server provides", () => {
    const mentioned = [...readme.matchAll(/(?<![\w/.-])lockstep\.[a-z_]+(?![\w/-])/g)].map((m) => m[0]);
    expect(mentioned).toContain("lockstep.ask");
    for (const name of mentioned) expect(commands, name).toContain(name);
  });

  it("gives :lsp-workspace-command one JSON object with the command's parameters", () => {
    const lines = readme.split("\n").filter((l) => l.trimStart().startsWith(":lsp-workspace-command lockstep."));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      const match = /^\s*:lsp-workspace-command (\S+) (.+)$/.exec(line);
      expect(match, line).not.toBeNull();
      const [, command = "", json = ""] = match ?? [];
      expect(commands, command).toContain(command);
      const argument: unknown = JSON.parse(json);
      expect(typeof argument === "object" && argument !== null && !Array.isArray(argument), line).toBe(true);
      const fields = argument as Record<string, unknown>;
      if (command === "lockstep.ask") expect(fields["prompt"], line).toEqual(expect.any(String));
      if (command === "lockstep.cancel" || command === "lockstep.job") expect(fields["job_id"], line).toEqual(expect.any(String));
      if (fields["range"] !== undefined) {
        const position = { line: expect.any(Number), character: expect.any(Number) };
        expect(fields["range"], line).toEqual({ start: position, end: position });
      }
    }
  });

  it("shows TOML that parses and agrees with languages.toml", () => {
    const blocks = [...readme.matchAll(/```toml\n([\s\S]*?)```/g)].map((m) => m[1] ?? "");
    expect(blocks.length).toBeGreaterThan(0);
    for (const block of blocks.filter((b) => !b.includes('"--wrap"'))) {
      const snippet = parseToml(block);
      const server = lockstepServer(snippet);
      expect(server["command"]).toBe(lockstepServer(config)["command"]);
      expect(server["args"]).toEqual(lockstepServer(config)["args"]);
      expect(readSettings(server["config"]).problems).toEqual([]);
      for (const entry of languages(snippet)) expect(entry["language-servers"]).toEqual(expect.arrayContaining(["lockstep"]));
    }
  });

  it("shows wrap mode as lockstep's command with --wrap -- and the server, settings under `lockstep`, the pair in its language list", () => {
    const blocks = [...readme.matchAll(/```toml\n([\s\S]*?)```/g)].map((m) => m[1] ?? "").filter((b) => b.includes('"--wrap"'));
    expect(blocks).toHaveLength(1);
    const snippet = parseToml(blocks[0] ?? "");
    const servers = table(snippet["language-server"], "[language-server]");
    const [name = "", wrapped] = Object.entries(servers)[0] ?? [];
    const server = table(wrapped, `[language-server.${name}]`);
    expect(server["command"]).toBe(lockstepServer(config)["command"]);
    const args = server["args"] as TomlValue[];
    expect(args.slice(0, args.indexOf("--wrap"))).toEqual(lockstepServer(config)["args"]);
    expect(args.slice(args.indexOf("--wrap"), args.indexOf("--wrap") + 2)).toEqual(["--wrap", "--"]);
    expect(args.length).toBeGreaterThan(args.indexOf("--wrap") + 2);
    const settings = table(table(server["config"], `[language-server.${name}.config]`)["lockstep"], "config.lockstep");
    expect(readSettings(settings).problems).toEqual([]);
    for (const entry of languages(snippet)) expect(entry["language-servers"]).toEqual([name]);
  });
});

// The docs match the product: every relative link in every markdown file resolves (the
// file, and the heading when it names one), every `lockstep …` command shown in a code
// block is a real command with real options (checked against its --help, which is run),
// and every settings table in the clients' docs lists every key of the one schema.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { settingsSchema } from "../../server/src/config/settings.js";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const BIN = path.join(REPO, "bin/lockstep.js");
const MARKDOWN = execFileSync("git", ["ls-files", "*.md"], { cwd: REPO, encoding: "utf8" })
  .split("\n")
  .filter((f) => f !== "" && existsSync(path.join(REPO, f)));
const KEYS = Object.keys(settingsSchema.shape);

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string): string =>
  heading
    .trim()
    .toLowerCase()
    .replace(/`/g, "")
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");

function anchorsOf(file: string): Set<string> {
  const out = new Set<string>();
  let inCode = false;
  for (const l of readFileSync(file, "utf8").split("\n")) {
    if (/^\s*```/.test(l)) inCode = !inCode;
    const heading = inCode ? null : /^#{1,6}\s+(.+)$/.exec(l);
    if (heading) out.add(slug(heading[1]!));
  }
  return out;
}

/** [text](target) links outside code, with their line. */
function linksOf(text: string): { target: string; line: number }[] {
  const out: { target: string; line: number }[] = [];
  let inCode = false;
  text.split("\n").forEach((l, i) => {
    if (/^\s*```/.test(l)) inCode = !inCode;
    if (inCode) return;
    for (const m of l.replace(/`[^`]*`/g, "").matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g))
      out.push({ target: m[1]!, line: i + 1 });
  });
  return out;
}

/** Each `lockstep …` command line in a shell code block, with the file and line it is on. */
function commandsOf(file: string): { line: number; words: string[] }[] {
  const out: { line: number; words: string[] }[] = [];
  let lang: string | undefined;
  readFileSync(path.join(REPO, file), "utf8")
    .split("\n")
    .forEach((l, i) => {
      const fence = /^\s*```(\S*)/.exec(l);
      if (fence) {
        lang = lang === undefined ? (fence[1] ?? "") : undefined;
        return;
      }
      if (lang === undefined || !["sh", "bash", "shell", "console"].includes(lang)) return;
      const code = l.replace(/\s#\s.*$/, "");
      const at = code.search(/(^|[|;&]\s*|\$\s+)lockstep(\s|$)/);
      if (at < 0) return;
      const words = code.slice(code.indexOf("lockstep", at)).trim().split(/\s+/);
      out.push({ line: i + 1, words });
    });
  return out;
}

describe("the docs", () => {
  it("have markdown files to check", () => {
    expect(MARKDOWN).toContain("README.md");
    expect(MARKDOWN).toContain("clients/cli/README.md");
  });

  it.each(MARKDOWN)("%s: every relative link resolves", (file) => {
    const broken: string[] = [];
    for (const { target, line } of linksOf(readFileSync(path.join(REPO, file), "utf8"))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // https:, mailto:
      const [rel, anchor] = target.split("#") as [string, string | undefined];
      const dest =
        rel === ""
          ? path.join(REPO, file)
          : path.resolve(path.dirname(path.join(REPO, file)), decodeURIComponent(rel));
      if (!existsSync(dest)) {
        broken.push(`${file}:${line}: ${target} (no such file)`);
        continue;
      }
      if (
        anchor !== undefined &&
        anchor !== "" &&
        dest.endsWith(".md") &&
        statSync(dest).isFile() &&
        !anchorsOf(dest).has(anchor)
      ) {
        broken.push(`${file}:${line}: ${target} (no heading #${anchor} in ${path.relative(REPO, dest)})`);
      }
    }
    expect(broken).toEqual([]);
  });

  const shown = MARKDOWN.flatMap((file) => commandsOf(file).map((c) => ({ ...c, file })));
  const helps = new Map<string, string>();
  const helpOf = (command: string): { status: number | null; text: string } => {
    const args = command === "" ? ["--help"] : [command, "--help"];
    const key = args.join(" ");
    if (!helps.has(key)) {
      const run = spawnSync(process.execPath, [BIN, ...args], { encoding: "utf8", timeout: 30_000 });
      helps.set(key, run.status === 0 ? run.stdout : `exit ${run.status}: ${run.stderr}`);
    }
    const text = helps.get(key)!;
    return { status: text.startsWith("exit ") ? 1 : 0, text };
  };

  it("show lockstep commands in their code blocks", () => {
    expect(shown.length).toBeGreaterThan(10);
  });

  it("show only real commands and options: each one's --help runs and names every option shown", () => {
    const wrong: string[] = [];
    for (const { file, line, words } of shown) {
      const [, first] = words;
      const where = `${file}:${line}: ${words.join(" ")}`;
      // `lockstep`, `lockstep --stdio …`, `lockstep --version`: the server's options are in the main help.
      const command = first === undefined || first.startsWith("-") ? "" : first;
      const help = helpOf(command);
      if (help.status !== 0) {
        wrong.push(`${where}: \`lockstep ${command} --help\` failed (${help.text.slice(0, 120)})`);
        continue;
      }
      const usage = command === "" ? help.text : `${help.text}\n${helpOf("").text}`;
      const rest = words.slice(command === "" ? 1 : 2);
      const wrapAt = rest.indexOf("--");
      for (const word of wrapAt >= 0 ? rest.slice(0, wrapAt) : rest) {
        const option = /^(--?[a-z][a-z0-9-]*)/i.exec(word)?.[1];
        if (option !== undefined && !usage.includes(option))
          wrong.push(`${where}: ${option} is not an option of lockstep ${command || "(the server)"}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it.each<[string, (key: string) => RegExp]>([
    ["README.md", (k) => new RegExp("^\\|[^|\\n]*`" + k + "`", "m")],
    ["clients/neovim/doc/lockstep.txt", (k) => new RegExp(`^ {4}${k} ~$`, "m")],
    ["clients/emacs/README.md", (k) => new RegExp("^\\|[^|\\n]*`:" + k + "`", "m")],
    ["clients/helix/README.md", (k) => new RegExp("^\\|[^|\\n]*`" + k + "`", "m")],
  ])("%s lists every setting of the schema", (file, row) => {
    const text = readFileSync(path.join(REPO, file), "utf8");
    expect(KEYS.filter((k) => !row(k).test(text))).toEqual([]);
  });

  it("say nowhere that the agent needs a Gemini key", () => {
    const claims = MARKDOWN.flatMap((f) =>
      /needs (a Gemini key|`GEMINI_API_KEY`)|instead of calling Gemini/.test(
        readFileSync(path.join(REPO, f), "utf8"),
      )
        ? [f]
        : [],
    );
    expect(claims).toEqual([]);
  });
});

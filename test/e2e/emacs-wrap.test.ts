// Wrap mode in a real Emacs 28 + Eglot 1.9 (batch mode): one line of init,
// (lockstep-wrap 'js-mode "typescript-language-server" "--stdio"), and the
// driver fixtures/emacs/wrap-driver.el checks that one js-mode buffer gets
// hover and diagnostics from typescript-language-server (the devDependency,
// put on PATH as a user would have it) and lockstep's patches, through the one
// server Eglot runs. It also checks what lockstep-wrap and lockstep-wrap-all
// make of eglot-server-programs.
import path from "node:path";
import { describe, expect, it } from "vitest";
import { emacsCommand, requireEmacs } from "./fixtures/emacs.js";
import { REPO, makeWorkspace, resultOf, runEditor } from "./fixtures/harness.js";
import { type BufferView, type Envelope, type ScenarioResult } from "./fixtures/scenario-checks.js";
import { sha256Hex } from "./fixtures/scenarios.js";

const FILE = "app.js";
/** @ts-check makes the JavaScript file type-checked, so the wrapped server reports the string assigned to a number. */
const APP = [
  "// @ts-check",
  "/** @type {number} */",
  "let count = 1;",
  'count = "one";',
  "console.log(count);",
  "",
].join("\n");
const DIAGNOSTIC = "Type 'string' is not assignable to type 'number'.";
/** A patch of the assignment on line 4, and the text it makes. */
const assign = (from: string, to: string, text: string): { diff: string; expected: string } => ({
  diff: ["@@ @@", " let count = 1;", `-count = ${from};`, `+count = ${to};`, " console.log(count);", ""].join(
    "\n",
  ),
  expected: text.replace(`count = ${from};`, `count = ${to};`),
});
const FIXED = assign('"one"', "2", APP);
const BROKEN = assign("2", '"two"', FIXED.expected);

interface FlymakeDiagnostic {
  line: number;
  type: string;
  text: string;
}

interface WrapEntry {
  modes: string;
  class: string | null;
  command: string[] | null;
}

interface WrapResult extends ScenarioResult<BufferView & { managed: boolean }> {
  configurations: {
    wrap_all: { wrapped: string[]; wrapped_again: number; entries: WrapEntry[] };
    wrap: WrapEntry[];
  };
  mode: string;
  server_class: string;
  server_name: string | null;
  language_id: string;
  /** What Eglot's hover shows (the eldoc text). */
  hover: string;
  hover_after: string;
  flymake_before: FlymakeDiagnostic[];
  flymake_after: FlymakeDiagnostic[];
  patches: {
    answer: Envelope;
    ms: number;
    buffer: BufferView & { managed: boolean };
    flymake: FlymakeDiagnostic[];
  }[];
  get_diagnostics: Envelope;
  buffer_after: BufferView;
  /** M-x lockstep-session's lines. */
  session: string[];
}

/** Plays wrap-driver.el on a workspace holding app.js, typescript-language-server and node on PATH. */
async function runWrapped(): Promise<WrapResult> {
  requireEmacs();
  const workspace = await makeWorkspace({ [FILE]: APP });
  const run = await runEditor<WrapResult>({
    ...emacsCommand("wrap-driver.el"),
    input: {
      workspace,
      repo: REPO,
      node: process.execPath,
      // diagnostics_after may wait longer than the default on a loaded machine; the test is what it says.
      settings: { approval: "auto", diagnosticsWaitMs: 8000 },
      mode: "js-mode",
      wrap: ["typescript-language-server", "--stdio"],
      file: FILE,
      hover_at: "count = 1",
      diagnostic: DIAGNOSTIC,
      // The first patch fixes the error, the second brings it back; `shown`: whether Flymake shows it after.
      patches: [
        { ...FIXED, shown: false },
        { ...BROKEN, shown: true },
      ],
    },
    cwd: workspace,
    env: {
      PATH: [
        path.join(REPO, "node_modules", ".bin"),
        path.dirname(process.execPath),
        process.env["PATH"] ?? "",
      ].join(path.delimiter),
    },
    // Longer than the common scenarios' 25 s: typescript-language-server starts too, and its first hover waits
    // for the project to load (the driver gives it 30 s on a loaded machine). Under WRAP_TEST_TIMEOUT_MS, so a
    // hung Emacs is killed and printed first.
    timeoutMs: 75_000,
  });
  const result = resultOf(run);
  expect(result.error, "the driver failed").toBeUndefined();
  expect(run.timedOut).toBe(false);
  return result;
}

/** Above the run's 75 s deadline. */
const WRAP_TEST_TIMEOUT_MS = 90_000;

/** Both tests read the one run: Emacs, lockstep and typescript-language-server start once. */
let played: Promise<WrapResult> | undefined;
const wrapped = (): Promise<WrapResult> => (played ??= runWrapped());

/** An entry of eglot-server-programs as the driver describes it: its modes, and lockstep's command when wrapped. */
const entry = (modes: string, wrappedCommand?: string[]): WrapEntry =>
  wrappedCommand
    ? {
        modes,
        class: "lockstep-wrap-server",
        command: ["lockstep", "--stdio", "--wrap", "--", ...wrappedCommand],
      }
    : { modes, class: null, command: null };

describe(
  "Emacs 28 + Eglot 1.9: lockstep-wrap in front of typescript-language-server",
  { timeout: WRAP_TEST_TIMEOUT_MS },
  () => {
    it("one js-mode buffer gets the wrapped server's hover and diagnostic and lockstep's patch", async () => {
      const r = await wrapped();
      // Eglot started the one wrapped server for the buffer.
      expect(r.mode).toBe("js-mode");
      expect(r.server_class).toBe("lockstep-wrap-server");
      expect(r.server_name).toBe("lockstep + typescript-language-server");

      // Hover comes from typescript-language-server.
      expect(r.hover).toContain("let count: number");

      // Its diagnostic is shown by Flymake, on the line it is about.
      expect(r.flymake_before).toContainEqual({
        line: 4,
        type: "eglot-error",
        text: expect.stringContaining(DIAGNOSTIC) as unknown as string,
      });

      // lockstep's patches, each on the sha256 of the state before, land in the same buffer, not on disk.
      expect(r.read?.data).toMatchObject({
        file_path: FILE,
        content: APP,
        sha256: sha256Hex(APP),
        open: true,
      });
      const [fixed, broken] = r.patches;
      for (const [patch, text] of [
        [fixed, FIXED.expected],
        [broken, BROKEN.expected],
      ] as const) {
        expect(patch?.answer.ok, JSON.stringify(patch?.answer)).toBe(true);
        expect(patch?.answer.data).toMatchObject({
          applied: true,
          latest_file_state: { sha256: sha256Hex(text) },
        });
        expect(patch?.buffer).toMatchObject({ text, modified: true, managed: true });
      }
      expect(r.apply_edits).toEqual(
        [0, 1].map(() => ({ documents: [expect.objectContaining({ versioned: true })], applied: true })),
      );
      expect(r.disk).toBe(APP);

      // lockstep.el sends Eglot's didChange when the edit lands, so the wrapped server checks the new
      // text while the command runs: the answer carries its diagnostics (the fix: none; the break: the error, new).
      const errorsAfter = (patch: (typeof r.patches)[number] | undefined): Record<string, unknown>[] =>
        (
          (
            patch?.answer.data?.["diagnostics_after"] as
              | { diagnostics: Record<string, unknown>[] }
              | undefined
          )?.diagnostics ?? []
        ).filter((d) => d["severity"] === "error");
      expect(fixed?.answer.data?.["diagnostics_after"]).toMatchObject({
        status: "received",
        version: fixed?.buffer.version,
      });
      expect(errorsAfter(fixed)).toEqual([]);
      expect(broken?.answer.data?.["diagnostics_after"]).toMatchObject({
        status: "received",
        version: broken?.buffer.version,
      });
      expect(errorsAfter(broken)).toEqual([
        expect.objectContaining({ line: 4, message: DIAGNOSTIC, new: true }),
      ]);

      // Flymake follows: the error goes with the fix and comes back with the break.
      expect(fixed?.flymake.filter((d) => d.type === "eglot-error")).toEqual([]);
      expect(broken?.flymake).toContainEqual({
        line: 4,
        type: "eglot-error",
        text: expect.stringContaining(DIAGNOSTIC) as unknown as string,
      });

      // The agent's get_diagnostics agrees with what the buffer shows, for Eglot's version of it.
      expect(r.get_diagnostics).toMatchObject({
        ok: true,
        data: { files: [{ file_path: FILE, version: r.buffer_after.version }] },
      });
      const recorded =
        (r.get_diagnostics.data as { files: { diagnostics: Record<string, unknown>[] }[] }).files[0]
          ?.diagnostics ?? [];
      expect(recorded.filter((d) => d["severity"] === "error")).toEqual([
        expect.objectContaining({ line: 4, message: DIAGNOSTIC }),
      ]);
      expect(r.hover_after).toContain("let count: number");

      // M-x lockstep-session says the wrapped server runs.
      expect(r.session).toContainEqual(`${"wrapped".padEnd(13)}typescript-language-server: running`);
    });

    it("lockstep-wrap puts its entry first and keeps the others; lockstep-wrap-all wraps the plain commands only", async () => {
      const { wrap, wrap_all } = (await wrapped()).configurations;
      // python-mode wrapped twice keeps the last; js-mode keeps the :language-id Eglot's entry gave it;
      // lockstep's own entry (lockstep-register) goes after the wraps; the user's entries stay.
      expect(wrap).toEqual([
        entry("(c-mode c++-mode)", ["clangd"]),
        entry('((js-mode :language-id "javascript"))', ["typescript-language-server", "--stdio"]),
        entry("(python-mode)", ["pyright-langserver", "--stdio"]),
        entry("(markdown-mode gfm-mode text-mode)"),
        entry('(js-mode :language-id "javascript")'),
        entry("python-mode"),
      ]);
      // Functions (eglot-alternatives), (CLASS . ARGS), host and port, :autoport,
      // :initializationOptions and lockstep itself are left alone, in place; a second call wraps nothing.
      expect(wrap_all.wrapped).toEqual(['(js-mode :language-id "javascript")', "go-mode"]);
      expect(wrap_all.wrapped_again).toBe(0);
      expect(wrap_all.entries).toEqual([
        entry("python-mode"),
        entry('(js-mode :language-id "javascript")', ["typescript-language-server", "--stdio"]),
        entry("go-mode", ["gopls"]),
        ...["java-mode", "gdscript-mode", "ruby-mode", "rust-mode", "text-mode", "markdown-mode"].map(
          (modes) => entry(modes),
        ),
      ]);
    });
  },
);

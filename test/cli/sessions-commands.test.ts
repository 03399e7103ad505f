// The store from the shell, as a user runs it: `lockstep ask` keeps its session,
// `ask --continue` carries the conversation on, `sessions` lists (and `--json`),
// `revert` refuses without a terminal or --yes and undoes the run with it, `rm`
// and `prune` delete. The real server is spawned by `ask`; Gemini's real SDK
// talks to a fake endpoint on loopback.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, utimes, writeFile, readdir } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import {
  GEOMETRY_TS,
  contentsOf,
  patchCall,
  replaceLineDiff,
  sha256Hex,
  TEST_API_KEY,
  turn,
} from "../support/agent-scripts.js";
import { startFakeGemini, type FakeTurn } from "../support/fake-gemini.js";

const run = promisify(execFile);
const BIN = path.resolve("bin/lockstep.js");
const dirs: string[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});

const A = `// Geometry helpers.\n${GEOMETRY_TS}`;
const PATCHED = A.replace("  return 2 * (w + h);", "  return 2 * w + 2 * h;");

async function setUp(script: FakeTurn[]) {
  const root = await mkdtemp(path.join(os.tmpdir(), "lockstep-cli-sessions-"));
  const state = await mkdtemp(path.join(os.tmpdir(), "lockstep-cli-state-"));
  dirs.push(root, state);
  await writeFile(path.join(root, "a.ts"), A);
  const fake = await startFakeGemini(script);
  closers.push(() => fake.close());
  const env = {
    ...process.env,
    XDG_STATE_HOME: state,
    GEMINI_API_KEY: TEST_API_KEY,
    GOOGLE_GEMINI_BASE_URL: fake.baseUrl,
  };
  const lockstep = async (...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> => {
    try {
      const { stdout, stderr } = await run(process.execPath, [BIN, ...args], {
        cwd: root,
        env,
        timeout: 30_000,
      });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  };
  return { root, state, fake, lockstep };
}

describe("lockstep sessions, ask --continue, revert", () => {
  it("keeps an ask's session, continues it, lists it, and reverts its run only when told to", async () => {
    const { root, fake, lockstep } = await setUp([
      turn({
        calls: [
          patchCall(
            "a.ts",
            replaceLineDiff("a.ts", A, "  return 2 * (w + h);", "  return 2 * w + 2 * h;"),
            sha256Hex(A),
          ),
        ],
      }),
      turn({ text: ["Expanded it."] }),
      turn({ text: ["Continued."] }),
    ]);
    expect((await lockstep("ask", "--yes", "Expand the perimeter")).code).toBe(0);
    expect(await readFile(path.join(root, "a.ts"), "utf8")).toBe(PATCHED);

    const listed = await lockstep("sessions", "--json");
    expect(listed.code).toBe(0);
    const data = (
      JSON.parse(listed.stdout) as {
        data: { sessions: { id: string; title: string; turns: number; files_changed: string[] }[] };
      }
    ).data;
    expect(data.sessions).toMatchObject([
      { title: "Expand the perimeter", turns: 2, files_changed: ["a.ts"] },
    ]);
    const id = data.sessions[0]!.id;
    const human = await lockstep("sessions");
    expect(human.stdout).toMatch(new RegExp(`^${id} .* 2 turns +1 file .*Expand the perimeter$`, "m"));

    const continued = await lockstep("ask", "--continue", "--yes", "And now?");
    expect(continued.code).toBe(0);
    expect(continued.stderr).toContain(`Resumed ${id}`);
    const third = JSON.stringify(contentsOf(fake.requests[2]));
    expect(third).toContain("Expand the perimeter");
    expect(third).toContain("Expanded it.");
    expect(third).toContain("And now?");
    expect(JSON.parse((await lockstep("sessions", "--json")).stdout).data.sessions).toHaveLength(1);

    // No terminal and no --yes: it shows what it would undo and refuses.
    const refused = await lockstep("revert");
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain("-  return 2 * w + 2 * h;");
    expect(refused.stdout).toContain("+  return 2 * (w + h);");
    expect(refused.stderr).toContain("no terminal to ask, so nothing was reverted. Run it again with --yes");
    expect(await readFile(path.join(root, "a.ts"), "utf8")).toBe(PATCHED);

    const reverted = await lockstep("revert", "--yes");
    expect(reverted.code).toBe(0);
    expect(reverted.stdout).toContain("↶ a.ts: this job's changes are undone");
    expect(await readFile(path.join(root, "a.ts"), "utf8")).toBe(A);
    const again = await lockstep("revert", "--yes");
    expect(again.code).toBe(1);
    expect(again.stderr).toContain("No stored run of this project has changes left to revert.");
  });

  it("deletes one session, prunes old ones, and names what it cannot find", async () => {
    const { state, lockstep } = await setUp([turn({ text: ["one"] }), turn({ text: ["two"] })]);
    await lockstep("ask", "--yes", "first");
    await lockstep("ask", "--yes", "second");
    const sessions = JSON.parse((await lockstep("sessions", "--json")).stdout).data.sessions as {
      id: string;
      title: string;
    }[];
    expect(sessions.map((s) => s.title)).toEqual(["second", "first"]);
    const unknown = await lockstep("sessions", "rm", "19990101-000000-000000");
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("No session '19990101-000000-000000'");
    // A prefix shorter than 4 characters, or one that names several sessions, deletes nothing; a unique one
    // is confirmed (no terminal here: refused, naming the whole id). It used to delete at `rm 2`.
    for (const slip of ["2", "20", sessions[0]!.id.slice(0, 8)]) {
      const refused = await lockstep("sessions", "rm", slip);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/too short to name a session|names 2 sessions/);
    }
    const prefix = await lockstep("sessions", "rm", sessions[0]!.id.slice(0, -1));
    expect(prefix.code).toBe(1);
    expect(prefix.stderr).toContain(`names session ${sessions[0]!.id}; nothing was deleted`);
    const revertShort = await lockstep("revert", "--yes", "j");
    expect(revertShort.stderr).toContain("too short to name a run");
    expect(JSON.parse((await lockstep("sessions", "--json")).stdout).data.sessions).toHaveLength(2);
    expect((await lockstep("sessions", "rm", sessions[0]!.id)).stdout).toContain(
      `Deleted session ${sessions[0]!.id}.`,
    );
    // The remaining one is made ten days old, then pruned at 7 days but not at 30.
    const [project] = await readdir(path.join(state, "lockstep"));
    const file = path.join(state, "lockstep", project!, `${sessions[1]!.id}.jsonl`);
    const old = new Date(Date.now() - 10 * 24 * 3600 * 1000);
    await utimes(file, old, old);
    expect((await lockstep("sessions", "prune", "--days", "30")).stdout).toContain(
      "No session is older than 30 days.",
    );
    expect((await lockstep("sessions", "prune", "--days", "7")).stdout).toContain(
      `Deleted 1 session(s): ${sessions[1]!.id}`,
    );
    expect((await lockstep("sessions")).stdout).toMatch(/^No stored session for /);
    const tooMany = await lockstep("revert", "a", "b");
    expect(tooMany.code).toBe(2);
    expect(tooMany.stderr).toContain("revert takes at most one RUN");
    const unknownSub = await lockstep("sessions", "show");
    expect(unknownSub.code).toBe(2);
    expect(unknownSub.stderr).toContain("unknown sessions command 'show'");
    const bad = await lockstep("sessions", "prune");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("sessions prune takes --days N");
    const noContinue = await lockstep("ask", "--continue", "--yes", "go on");
    expect(noContinue.code).toBe(1);
    expect(noContinue.stderr).toContain("--continue: no stored session of this project to continue");
  });
});

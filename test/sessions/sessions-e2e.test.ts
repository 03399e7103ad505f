// Sessions that outlive the process, with the real server spawned over stdio and
// Gemini's real SDK against a fake endpoint on loopback: a server killed mid-turn
// and a new one resuming; a stored run reverted after a restart; two servers on one
// project; a torn line; a file changed while no server ran; no secret on disk.
import { appendFileSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  contentsOf,
  deferred,
  GEOMETRY_TS,
  readCall,
  replaceLineDiff,
  sha256Hex,
  startAgent,
  TEST_API_KEY,
  turn,
  patchCall,
  type WirePart,
} from "../support/agent-scripts.js";
import type { RecordedRequest } from "../support/fake-gemini.js";
import { stopAllServers } from "../support/lsp-client.js";

afterEach(stopAllServers);

const A = `// Geometry helpers.\n${GEOMETRY_TS}`;
const PATCHED = A.replace("  return 2 * (w + h);", "  return 2 * w + 2 * h;");

/** A state directory of this test's own, so each test sees only its sessions. */
function stateEnv(): { env: Record<string, string>; dir: string } {
  const dir = mkdtempSync(path.join(tmpdir(), "lockstep-sessions-e2e-"));
  return { env: { XDG_STATE_HOME: dir }, dir };
}

function sessionFiles(dir: string): string[] {
  const base = path.join(dir, "lockstep");
  return readdirSync(base).flatMap((project) =>
    readdirSync(path.join(base, project))
      .filter((f) => f.endsWith(".jsonl"))
      .map((f) => path.join(base, project, f)),
  );
}

const texts = (request: RecordedRequest | undefined): string[] =>
  contentsOf(request).flatMap((c) =>
    (c.parts ?? []).map((p: WirePart) => (typeof p["text"] === "string" ? p["text"] : JSON.stringify(p))),
  );

describe("a session that outlives its server", () => {
  it("survives SIGKILL mid-turn: a new server resumes it and the model's next request holds every complete turn", async () => {
    const { env } = stateEnv();
    const secondTurnAsked = deferred();
    const first = await startAgent({
      files: { "a.ts": A },
      env,
      initializationOptions: { approval: "auto" },
      script: (_request, index) => {
        if (index === 1) secondTurnAsked.resolve();
        return index === 0
          ? turn({ text: ["Reading it."], calls: [readCall("a.ts")] })
          : turn({ text: ["Thinking"], hang: true });
      },
    });
    await first.ask("Look at the perimeter in a.ts");
    await secondTurnAsked.promise;
    const session = await first.client.command("session", {});
    const live = session.data?.["stored_session"] as { id: string } | null;
    expect(live?.id).toMatch(/^\d{8}-\d{6}-[0-9a-f]{6}$/);
    await first.client.kill(); // SIGKILL while the second turn streams

    const second = await startAgent({
      files: {},
      root: first.root,
      env,
      script: [turn({ text: ["Continuing."] })],
    });
    const listed = await second.client.command("sessions", {});
    expect(listed.ok).toBe(true);
    const sessions = listed.data?.["sessions"] as {
      id: string;
      title: string;
      turns: number;
      live: number | null;
    }[];
    expect(sessions).toMatchObject([
      { id: live!.id, title: "Look at the perimeter in a.ts", turns: 1, live: null },
    ]);
    const resumed = await second.client.command("resume", { session_id: live!.id });
    expect(resumed).toMatchObject({ ok: true, data: { session_id: live!.id, turns: 1 } });
    expect((await second.client.command("session", {})).data?.["stored_session"]).toMatchObject({
      id: live!.id,
    });

    const job = await second.finished(await second.ask("Now go on"));
    expect(job.status).toBe("done");
    const contents = contentsOf(second.fake!.requests[0]);
    // The complete turn (prompt, model's call, its answer), the note closing the killed run, the new prompt.
    expect(contents.map((c) => c.role)).toEqual(["user", "model", "user", "model", "user"]);
    expect(texts(second.fake!.requests[0]).join("\n")).toContain("Look at the perimeter in a.ts");
    const answer = contents[2]!.parts![0]!["functionResponse"] as { response: { data: { content: string } } };
    expect(answer.response.data.content).toBe(A);
    expect(JSON.stringify(contents[3])).toContain("the server stopped during it");
    expect(JSON.stringify(contents[4])).toContain("Now go on");
    // Nothing of the unfinished turn ("Thinking", hung) is in the history.
    expect(JSON.stringify(contents)).not.toContain("Thinking");
  });

  it("presents a file the model read that changed while no server ran as changed, with its new state", async () => {
    const { env } = stateEnv();
    const first = await startAgent({
      files: { "a.ts": A },
      env,
      script: [turn({ calls: [readCall("a.ts")] }), turn({ text: ["Read it."] })],
    });
    expect((await first.finished(await first.ask("Read a.ts"))).status).toBe("done");
    const id = ((await first.client.command("session", {})).data?.["stored_session"] as { id: string }).id;
    await first.client.kill();
    const changed = A.replace("// Geometry helpers.", "// Geometry helpers, changed while no server ran.");
    writeFileSync(path.join(first.root, "a.ts"), changed);

    const second = await startAgent({
      files: {},
      root: first.root,
      env,
      script: [turn({ text: ["Seen."] })],
    });
    expect((await second.client.command("resume", { session_id: id })).ok).toBe(true);
    await second.finished(await second.ask("What changed?"));
    const contents = contentsOf(second.fake!.requests[0]);
    const request = JSON.stringify(contents);
    const note = String(contents.at(-1)!.parts![0]!["text"]);
    expect(note).toMatch(/^This conversation was resumed, and these files changed since you last saw them/);
    const shown = JSON.parse(note.split("\n").find((line) => line.startsWith('{"file_path":'))!) as {
      file_path: string;
      sha256: string;
      content: string;
    };
    expect(shown).toMatchObject({ file_path: "a.ts", sha256: sha256Hex(changed), content: changed });
    expect(note).toMatch(/What changed\?$/);
    // The old copy is no longer presented as current: it became a marker pointing at the new state.
    expect(request).not.toContain(JSON.stringify(A).slice(1, -1));
    expect(request).toContain(`[superseded: a newer state of a.ts is further down`);
  });

  it("reverts a stored run after a restart, by content, keeping what was typed since", async () => {
    const { env } = stateEnv();
    const first = await startAgent({
      files: { "a.ts": A, "b.txt": "one\ntwo\nthree\n" },
      env,
      initializationOptions: { approval: "auto", closedFileEdits: "disk" },
      script: [
        turn({
          calls: [
            patchCall(
              "a.ts",
              replaceLineDiff("a.ts", A, "  return 2 * (w + h);", "  return 2 * w + 2 * h;"),
              sha256Hex(A),
            ),
          ],
        }),
        turn({ text: ["Done."] }),
      ],
    });
    const job = await first.finished(await first.ask("Expand the perimeter"));
    expect(job.files_changed).toEqual(["a.ts"]);
    expect(await first.disk("a.ts")).toBe(PATCHED);
    const id = ((await first.client.command("session", {})).data?.["stored_session"] as { id: string }).id;
    await first.client.kill();
    // The user types elsewhere in the file while no server runs.
    writeFileSync(
      path.join(first.root, "a.ts"),
      PATCHED.replace("// Geometry helpers.", "// Geometry helpers (cm)."),
    );

    const second = await startAgent({
      files: {},
      root: first.root,
      env,
      initializationOptions: { closedFileEdits: "disk" },
    });
    const reverted = await second.client.command("revert", { session_id: id });
    expect(reverted).toMatchObject({
      ok: true,
      data: { session_id: id, job_id: job.job_id, files: [{ file_path: "a.ts", status: "reverted" }] },
    });
    expect(await second.disk("a.ts")).toBe(A.replace("// Geometry helpers.", "// Geometry helpers (cm)."));
    // Reverted once: the store forgot it, a second revert finds nothing.
    const again = await second.client.command("revert", { session_id: id });
    expect(again).toMatchObject({ ok: false, error: { code: "not_found" } });
  });

  it("shows a conflicting part of a stored run instead of forcing it", async () => {
    const { env } = stateEnv();
    const first = await startAgent({
      files: { "a.ts": A },
      env,
      initializationOptions: { approval: "auto", closedFileEdits: "disk" },
      script: [
        turn({
          calls: [
            patchCall(
              "a.ts",
              replaceLineDiff("a.ts", A, "  return 2 * (w + h);", "  return 2 * w + 2 * h;"),
              sha256Hex(A),
            ),
          ],
        }),
        turn({ text: ["Done."] }),
      ],
    });
    const job = await first.finished(await first.ask("Expand the perimeter"));
    await first.client.kill();
    const typed = PATCHED.replace("  return 2 * w + 2 * h;", "  return w + w + h + h;");
    writeFileSync(path.join(first.root, "a.ts"), typed);
    const second = await startAgent({
      files: {},
      root: first.root,
      env,
      initializationOptions: { closedFileEdits: "disk" },
    });
    const reverted = await second.client.command("revert", { job_id: job.job_id });
    expect(reverted).toMatchObject({
      ok: true,
      data: {
        files: [
          {
            file_path: "a.ts",
            status: "conflict",
            message: expect.stringContaining("return 2 * w + 2 * h;"),
          },
        ],
      },
    });
    expect(await second.disk("a.ts")).toBe(typed);
  });

  it("lets two servers on one project each keep their own session file, nothing lost", async () => {
    const { env, dir } = stateEnv();
    const one = await startAgent({ files: { "a.ts": A }, env, script: [turn({ text: ["first answer"] })] });
    const two = await startAgent({
      files: {},
      root: one.root,
      env,
      script: [turn({ text: ["second answer"] })],
    });
    const [a, b] = await Promise.all([one.ask("first question"), two.ask("second question")]);
    await Promise.all([one.finished(a), two.finished(b)]);
    const files = sessionFiles(dir);
    expect(files).toHaveLength(2);
    const all = files.map((f) => readFileSync(f, "utf8")).join("\n");
    for (const words of ["first question", "first answer", "second question", "second answer"])
      expect(all).toContain(words);
    const listed = await one.client.command("sessions", {});
    const sessions = listed.data?.["sessions"] as { title: string; live: number | null }[];
    expect(sessions.map((s) => s.title).sort()).toEqual(["first question", "second question"]);
    // The other server's session is live in its process: not resumable here.
    const other = (listed.data?.["sessions"] as { id: string; title: string }[]).find(
      (s) => s.title === "second question",
    )!;
    const refused = await one.client.command("resume", { session_id: other.id });
    expect(refused).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/live in another lockstep process \(pid \d+\)/) },
    });
  });

  it("skips a torn last line with a note and resumes what was whole; names a file of a newer format", async () => {
    const { env, dir } = stateEnv();
    const first = await startAgent({ files: { "a.ts": A }, env, script: [turn({ text: ["whole turn"] })] });
    await first.finished(await first.ask("a question"));
    await first.client.kill();
    const [file] = sessionFiles(dir);
    appendFileSync(file!, '{"t":"msg","m":{"role":"user","parts":[{"text":"torn');
    writeFileSync(
      path.join(path.dirname(file!), "20991231-235959-abcdef.jsonl"),
      JSON.stringify({ t: "session", format: 7 }) + "\n",
    );
    const second = await startAgent({
      files: {},
      root: first.root,
      env,
      script: [turn({ text: ["after the tear"] })],
    });
    const listed = await second.client.command("sessions", {});
    expect(listed.data?.["sessions"]).toMatchObject([
      { title: "a question", notes: [expect.stringMatching(/cut off mid-write/)] },
    ]);
    expect(listed.data?.["skipped"]).toMatchObject([
      {
        file: expect.stringContaining("20991231-235959-abcdef.jsonl"),
        reason: expect.stringMatching(/format 7 by a newer lockstep/),
      },
    ]);
    const id = (listed.data?.["sessions"] as { id: string }[])[0]!.id;
    expect((await second.client.command("resume", { session_id: id })).ok).toBe(true);
    expect((await second.finished(await second.ask("go on"))).status).toBe("done");
    expect(JSON.stringify(contentsOf(second.fake!.requests[0]))).toContain("whole turn");
    expect(readFileSync(file!, "utf8")).not.toContain("torn");
  });

  it("never writes a secret: the key is not in the store, which is 0700/0600", async () => {
    const { env, dir } = stateEnv();
    const first = await startAgent({
      files: { "a.ts": A },
      env,
      script: [turn({ calls: [readCall("a.ts")] }), turn({ text: ["ok"] })],
    });
    await first.finished(await first.ask(`Remember ${TEST_API_KEY} for me`));
    const files = sessionFiles(dir);
    expect(files).toHaveLength(1);
    const text = readFileSync(files[0]!, "utf8");
    expect(text).toContain("Remember [redacted] for me");
    expect(text).not.toContain(TEST_API_KEY);
    expect(statSync(files[0]!).mode & 0o777).toBe(0o600);
    expect(statSync(path.dirname(files[0]!)).mode & 0o777).toBe(0o700);
  });

  it("answers bad arguments and unknown sessions with what to do next", async () => {
    const { env } = stateEnv();
    const rig = await startAgent({ files: { "a.ts": A }, env, script: [turn({ text: ["ok"] })] });
    expect(await rig.client.command("resume", {})).toMatchObject({
      ok: false,
      error: {
        code: "invalid_argument",
        message: expect.stringContaining("lockstep.resume needs {session_id}"),
      },
    });
    expect(await rig.client.command("resume", { session_id: "20990101-000000-abcdef" })).toMatchObject({
      ok: false,
      error: {
        code: "not_found",
        message: expect.stringContaining("No session '20990101-000000-abcdef'"),
        suggestions: [expect.stringContaining("lockstep.sessions")],
      },
    });
    expect(await rig.client.command("revert", { session_id: "2099" })).toMatchObject({
      ok: false,
      error: { code: "not_found" },
    });
    expect(await rig.client.command("revert", { job_id: "no-such-job" })).toMatchObject({
      ok: false,
      error: { code: "not_found", message: expect.stringContaining("No stored run 'no-such-job'") },
    });
    expect(await rig.client.command("sessions", { limit: "all" })).toMatchObject({
      ok: false,
      error: { code: "invalid_argument" },
    });
    expect(await rig.client.command("sessions", {})).toMatchObject({
      ok: true,
      data: { live: null, sessions: [], skipped: [] },
    });
  });

  it("keeps nothing on disk with `sessions: false`", async () => {
    const { env, dir } = stateEnv();
    const first = await startAgent({
      files: { "a.ts": A },
      env,
      initializationOptions: { sessions: false },
      script: [turn({ text: ["ok"] })],
    });
    await first.finished(await first.ask("hello"));
    expect(readdirSync(dir)).toEqual([]);
    expect((await first.client.command("session", {})).data?.["stored_session"]).toBeNull();
    expect(await first.client.command("sessions", {})).toMatchObject({
      ok: false,
      error: { message: expect.stringMatching(/`sessions` setting is false/) },
    });
  });
});

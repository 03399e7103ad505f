import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import type { Message } from "../../server/src/agent/model.js";
import { Journal } from "../../server/src/review/journal.js";
import {
  SessionRecorder,
  SessionStore,
  parseSession,
  projectFolderName,
  stateDirectory,
} from "../../server/src/sessions/index.js";

const SECRET = "sk-planted-secret-0123456789";

function freshStore(secrets: string[] = []): SessionStore {
  const dir = mkdtempSync(path.join(tmpdir(), "lockstep-store-"));
  return new SessionStore("/projects/demo app", path.join(dir, "state", "lockstep"), () => secrets);
}

const state = (content: string) => ({
  file_path: "a.txt",
  uri: "file:///a.txt",
  version: null,
  sha256: `sha-${content.length}`,
  content,
  open: false,
});

function recorder(store: SessionStore, warnings: string[] = []): SessionRecorder {
  return new SessionRecorder({
    store: () => store,
    provider: () => ({
      provider: "openai",
      model: "m",
      baseUrl: `https://user:${SECRET}@example.test/v1?key=${SECRET}`,
    }),
    warn: (w) => warnings.push(w),
  });
}

/** One run of two turns, as the turn loop would hand it over. */
async function oneRun(
  rec: SessionRecorder,
  jobId = "job-1",
  prompt = "Fix the greeting in a.txt\nand more",
): Promise<Message[]> {
  const history: Message[] = [{ role: "user", parts: [{ text: prompt }] }];
  await rec.runStarted({ job_id: jobId, prompt, model: "m" }, [], async () => ({ ok: true, data: {} }));
  history.push({
    role: "assistant",
    parts: [{ functionCall: { name: "read_file", args: { file_path: "a.txt" } } }],
  });
  history.push({
    role: "tool",
    parts: [{ functionResponse: { name: "read_file", response: { ok: true, data: state("hello\n") } } }],
  });
  rec.turnEnded(jobId, history, { input_tokens: 10, output_tokens: 2 });
  history.push({ role: "assistant", parts: [{ text: "Done." }] });
  rec.turnEnded(jobId, history, { input_tokens: 20, output_tokens: 4 });
  rec.runEnded({
    job_id: jobId,
    status: "done",
    usage: { input_tokens: 20, output_tokens: 4 },
    files_changed: ["a.txt"],
    history,
  });
  return history;
}

describe("session store", () => {
  it("keeps a run's history, runs and usage, and lists it with a title from the first prompt", async () => {
    const store = freshStore();
    const rec = recorder(store);
    const history = await oneRun(rec);
    const live = rec.live()!;
    rec.close();
    const { sessions, skipped } = store.list();
    expect(skipped).toEqual([]);
    expect(sessions).toHaveLength(1);
    expect(sessions[0]).toMatchObject({
      id: live.id,
      title: "Fix the greeting in a.txt",
      runs: 1,
      turns: 2,
      files_changed: ["a.txt"],
      usage: { input_tokens: 20, output_tokens: 4 },
      live: null,
    });
    const loaded = store.load(live.id.slice(0, 17));
    expect(loaded.ok && loaded.value.history).toEqual(history);
  });

  it("makes its folders 0700 and its files 0600, under a folder named for the project", async () => {
    const store = freshStore();
    const rec = recorder(store);
    await oneRun(rec);
    const file = rec.live()!.file;
    rec.close();
    expect(path.basename(store.folder)).toBe(projectFolderName("/projects/demo app"));
    expect(path.basename(store.folder)).toMatch(/^demo_app-[0-9a-f]{16}$/);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(store.folder).mode & 0o777).toBe(0o700);
    expect(statSync(path.dirname(store.folder)).mode & 0o777).toBe(0o700);
  });

  it("never writes a secret: no key, no endpoint credential or query", async () => {
    const store = freshStore([SECRET]);
    const rec = recorder(store);
    const history: Message[] = [{ role: "user", parts: [{ text: `my key is ${SECRET}` }] }];
    await rec.runStarted({ job_id: "j", prompt: `use ${SECRET}`, model: "m" }, [], async () => ({
      ok: true,
      data: {},
    }));
    history.push({ role: "assistant", parts: [{ text: "ok" }] });
    rec.turnEnded("j", history, { input_tokens: 1, output_tokens: 1 });
    const file = rec.live()!.file;
    rec.close();
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain("user:");
    expect(text).toContain('"endpoint":"https://example.test/v1"');
  });

  it("stores a file's content once however often the model is shown it", async () => {
    const store = freshStore();
    const rec = recorder(store);
    const big = "x".repeat(10_000) + "\n";
    const history: Message[] = [{ role: "user", parts: [{ text: "go" }] }];
    await rec.runStarted({ job_id: "j", prompt: "go", model: "m" }, [], async () => ({ ok: true, data: {} }));
    for (let i = 0; i < 5; i++) {
      history.push({
        role: "assistant",
        parts: [{ functionCall: { name: "read_file", args: { file_path: "a.txt" } } }],
      });
      history.push({
        role: "tool",
        parts: [{ functionResponse: { name: "read_file", response: { ok: true, data: state(big) } } }],
      });
      rec.turnEnded("j", history, { input_tokens: 0, output_tokens: 0 });
    }
    const file = rec.live()!.file;
    rec.close();
    expect(statSync(file).size).toBeLessThan(15_000);
    const parsed = parseSession(readFileSync(file, "utf8"));
    expect(parsed.ok && parsed.session.history.filter((m) => m.role === "tool")).toHaveLength(5);
  });

  it("skips a torn last line with a note, drops an unfinished turn, and cuts the tail before it appends again", async () => {
    const store = freshStore();
    const rec = recorder(store);
    const history = await oneRun(rec);
    const { id, file } = rec.live()!;
    rec.close();
    appendFileSync(file, '{"t":"msg","m":{"role":"user","parts":[{"text":"half a tu');
    const loaded = store.load(id);
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    expect(loaded.value.notes.join()).toMatch(/cut off mid-write/);
    expect(loaded.value.history).toEqual(history);
    const again = recorder(store);
    const resumed = again.resume(id);
    expect(resumed.ok).toBe(true);
    again.close();
    const text = readFileSync(file, "utf8");
    expect(text).not.toContain("half a tu");
    expect(text.endsWith("\n")).toBe(true);
    expect(parseSession(text).ok).toBe(true);
  });

  it("counts the tokens of a run the server stopped during, from its last complete turn, before and after a resume", async () => {
    const store = freshStore();
    const rec = recorder(store);
    const history: Message[] = [{ role: "user", parts: [{ text: "go" }] }];
    await rec.runStarted({ job_id: "j", prompt: "go", model: "m" }, [], async () => ({ ok: true, data: {} }));
    history.push({
      role: "assistant",
      parts: [{ functionCall: { name: "read_file", args: { file_path: "a.txt" } } }],
    });
    history.push({
      role: "tool",
      parts: [{ functionResponse: { name: "read_file", response: { ok: true, data: state("x\n") } } }],
    });
    rec.turnEnded("j", history, { input_tokens: 7, output_tokens: 3 });
    const { id } = rec.live()!;
    // The process dies here: no end record.
    expect(store.list().sessions[0]).toMatchObject({
      usage: { input_tokens: 7, output_tokens: 3 },
      turns: 1,
    });
    rec.close();
    const again = recorder(store);
    const resumed = again.resume(id);
    expect(resumed.ok && resumed.value.history.at(-1)).toEqual({
      role: "assistant",
      parts: [{ text: "(This request ended: the server stopped during it.)" }],
    });
    again.close();
    const loaded = store.load(id);
    expect(loaded.ok && loaded.value.runs).toMatchObject([
      { job_id: "j", status: "interrupted", usage: { input_tokens: 7, output_tokens: 3 } },
    ]);
    expect(loaded.ok && loaded.value.usage).toEqual({ input_tokens: 7, output_tokens: 3 });
    expect(loaded.ok && loaded.value.history).toHaveLength(4);
  });

  it("names and skips a file of a newer format or a broken one, and lists the rest", async () => {
    const store = freshStore();
    const rec = recorder(store);
    await oneRun(rec);
    rec.close();
    writeFileSync(
      path.join(store.folder, "20990101-000000-aaaaaa.jsonl"),
      JSON.stringify({ t: "session", format: 99, id: "x" }) + "\n",
    );
    writeFileSync(path.join(store.folder, "20990101-000000-bbbbbb.jsonl"), "not json\n{}\n");
    const { sessions, skipped } = store.list();
    expect(sessions).toHaveLength(1);
    expect(skipped.map((s) => [path.basename(s.file), s.reason])).toEqual([
      ["20990101-000000-bbbbbb.jsonl", expect.stringMatching(/line 1 is not JSON/)],
      ["20990101-000000-aaaaaa.jsonl", expect.stringMatching(/format 99 by a newer lockstep/)],
    ]);
    const load = store.load("20990101-000000-aaaaaa");
    expect(!load.ok && load.message).toMatch(/20990101-000000-aaaaaa\.jsonl is skipped: .*newer lockstep/);
  });

  it("lets two writers on one project keep their own files", async () => {
    const store = freshStore();
    const a = recorder(store);
    const b = recorder(store);
    await oneRun(a, "job-a", "first server");
    await oneRun(b, "job-b", "second server");
    expect(a.live()!.file).not.toBe(b.live()!.file);
    a.close();
    b.close();
    expect(
      store
        .list()
        .sessions.map((s) => s.title)
        .sort(),
    ).toEqual(["first server", "second server"]);
  });

  it("keeps the journal, forgets what was reverted, and deletes and prunes", async () => {
    const store = freshStore();
    const rec = recorder(store);
    const journal = new Journal();
    journal.listen(rec);
    await oneRun(rec);
    journal.record({
      job_id: "job-1",
      tool: "edit",
      file_path: "a.txt",
      uri: "file:///a.txt",
      before: "hello\n",
      after: "hi\n",
    });
    journal.record({
      job_id: "job-1",
      tool: "edit",
      file_path: "b.txt",
      uri: "file:///b.txt",
      before: null,
      after: "new\n",
    });
    journal.forget("job-1", "file:///b.txt");
    const { id, file } = rec.live()!;
    rec.close();
    const loaded = store.load(id);
    expect(loaded.ok && loaded.value.journal).toEqual([
      {
        job_id: "job-1",
        tool: "edit",
        file_path: "a.txt",
        uri: "file:///a.txt",
        before: "hello\n",
        after: "hi\n",
      },
    ]);
    const old = new Date(Date.now() - 10 * 24 * 3600 * 1000);
    utimesSync(file, old, old);
    expect(store.prune(30)).toEqual([]);
    expect(store.prune(7)).toEqual([id]);
    expect(readdirSync(store.folder)).toEqual([]);
    expect(store.delete(id)).toMatchObject({ ok: false });
  });

  it("refuses to resume or delete a session another live process writes", async () => {
    const store = freshStore();
    const rec = recorder(store);
    await oneRun(rec);
    const { id, file } = rec.live()!;
    // The lock names a live process that is not this one (our parent).
    writeFileSync(file.replace(/\.jsonl$/, ".lock"), String(process.ppid));
    const other = recorder(store);
    const resumed = other.resume(id);
    expect(!resumed.ok && resumed.message).toMatch(/live in another lockstep process \(pid \d+\)/);
    expect(store.delete(id)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/live in another lockstep process/),
    });
  });

  it("keeps writing the live session when a resume of another is refused, and can resume its own", async () => {
    const store = freshStore();
    const held = recorder(store);
    await oneRun(held, "job-held", "held elsewhere");
    const heldId = held.live()!.id;
    writeFileSync(held.live()!.file.replace(/\.jsonl$/, ".lock"), String(process.ppid));
    const rec = recorder(store);
    await oneRun(rec, "job-mine", "mine");
    const mine = rec.live()!.id;
    expect(rec.resume(heldId)).toMatchObject({ ok: false });
    expect(rec.live()?.id).toBe(mine);
    const again = rec.resume(mine);
    expect(again.ok && again.value.header.id).toBe(mine);
    expect(rec.live()?.id).toBe(mine);
    rec.close();
    expect(rec.live()).toBeNull();
    expect(existsSync(store.fileOf(mine).replace(/\.jsonl$/, ".lock"))).toBe(false);
  });

  it("finds the state directory: the setting, else XDG_STATE_HOME, else ~/.local/state", () => {
    expect(stateDirectory("/x/y", {})).toBe("/x/y");
    expect(stateDirectory(undefined, { XDG_STATE_HOME: "/s" })).toBe("/s/lockstep");
    expect(stateDirectory(undefined, { XDG_STATE_HOME: "relative" })).toMatch(/\.local\/state\/lockstep$/);
  });
});

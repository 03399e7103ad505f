// The session store's cost: what writing a turn adds (encoding, one write, one
// fdatasync) over a 200-turn session, and what resuming that session takes, in
// process (read, parse, rebuild the history and journal, compact it as the first
// request would) and as `lockstep.resume` answered by a spawned server.
// Run: `npm run build && node dist/bench/server.js sessions`.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { compactFileStates } from "../server/src/agent/history-compaction.js";
import type { Message } from "../server/src/agent/model.js";
import { Conversation } from "../server/src/agent/conversation.js";
import { Journal } from "../server/src/review/journal.js";
import { loadIntoConversation, SessionRecorder, SessionStore } from "../server/src/sessions/index.js";
import { createWorkspace, removeWorkspace, startServer } from "../test/support/lsp-client.js";
import { timingRow, type TimingRow } from "./report.js";

const TURNS = 200;
const RESUME_RUNS = 15;

/** A file of about `lines` code-like lines; `variant` changes one line, as a patch would. */
function fileText(lines: number, variant: number): string {
  const out: string[] = [];
  for (let i = 0; i < lines; i++)
    out.push(
      i === variant % lines
        ? `  const changed_${variant} = ${variant};`
        : `  const value_${i} = compute(${i}, "item-${(i * 7919) % 10007}");`,
    );
  return out.join("\n") + "\n";
}

const state = (file: string, content: string) => ({
  file_path: file,
  uri: `file:///project/${file}`,
  version: null,
  sha256: `${file}-${content.length}-${content.slice(-12)}`,
  content,
  open: false,
});

/**
 * Writes a session of TURNS turns through the recorder, as the turn loop hands them over: each
 * turn a patch of a 150-line file (its new state in the answer) and every fifth a read of an
 * unchanged 600-line file. Returns the time each turnEnded took.
 */
async function writeSession(store: SessionStore): Promise<{ samples: number[]; id: string; file: string }> {
  const recorder = new SessionRecorder({
    store: () => store,
    provider: () => ({ provider: "gemini", model: "bench" }),
    warn: (w) => process.stderr.write(`${w}\n`),
  });
  const journal = new Journal();
  journal.listen(recorder);
  const history: Message[] = [
    { role: "user", parts: [{ text: "Refactor the helpers in src/a.ts, one function at a time." }] },
  ];
  await recorder.runStarted(
    { job_id: "bench-job", prompt: "Refactor the helpers", model: "bench" },
    [],
    async () => ({ ok: true, data: {} }),
  );
  const big = fileText(600, -1);
  const samples: number[] = [];
  let before = fileText(150, 0);
  for (let turn = 1; turn <= TURNS; turn++) {
    const after = fileText(150, turn);
    const read = turn % 5 === 0;
    history.push({
      role: "assistant",
      parts: [
        { text: `Turn ${turn}: changing line ${turn % 150} and checking the callers.` },
        {
          functionCall: {
            name: "safe_patch",
            args: {
              file_path: "src/a.ts",
              unified_diff: `@@ -1,3 +1,3 @@\n-old ${turn}\n+new ${turn}\n context\n`,
              base_content_sha256: "x".repeat(64),
            },
          },
        },
        ...(read ? [{ functionCall: { name: "read_file", args: { file_path: "src/big.ts" } } }] : []),
      ],
    });
    journal.record({
      job_id: "bench-job",
      tool: "safe_patch",
      file_path: "src/a.ts",
      uri: "file:///project/src/a.ts",
      before,
      after,
    });
    history.push({
      role: "tool",
      parts: [
        {
          functionResponse: {
            name: "safe_patch",
            response: {
              ok: true,
              data: {
                message: "Patch applied successfully.",
                applied: true,
                latest_file_state: state("src/a.ts", after),
              },
            },
          },
        },
        ...(read
          ? [
              {
                functionResponse: {
                  name: "read_file",
                  response: { ok: true, data: state("src/big.ts", big) },
                },
              },
            ]
          : []),
      ],
    });
    before = after;
    const started = performance.now();
    recorder.turnEnded("bench-job", history, { input_tokens: turn * 1000, output_tokens: turn * 50 });
    samples.push(performance.now() - started);
  }
  history.push({ role: "assistant", parts: [{ text: "Done." }] });
  recorder.runEnded({
    job_id: "bench-job",
    status: "done",
    usage: { input_tokens: 1, output_tokens: 1 },
    files_changed: ["src/a.ts"],
    history,
  });
  const live = recorder.live()!;
  recorder.close();
  return { samples, id: live.id, file: live.file };
}

export async function sessionsRows(): Promise<TimingRow[]> {
  const stateDir = mkdtempSync(path.join(tmpdir(), "lockstep-bench-sessions-"));
  const root = await createWorkspace(
    { "src/a.ts": fileText(150, 0), "src/big.ts": fileText(600, -1) },
    "lockstep-bench-sessions-ws-",
  );
  try {
    const store = new SessionStore(realpathSync(root), path.join(stateDir, "lockstep"));
    const { samples, id, file } = await writeSession(store);
    const bytes = statSync(file).size;

    const resume: number[] = [];
    const resumeCpu: number[] = [];
    let messages = 0;
    for (let i = 0; i < RESUME_RUNS; i++) {
      const cpu = process.cpuUsage();
      const started = performance.now();
      const recorder = new SessionRecorder({
        store: () => store,
        provider: () => ({ provider: "gemini", model: "bench" }),
        warn: () => undefined,
      });
      const resumed = recorder.resume(id);
      if (!resumed.ok) throw new Error(resumed.message);
      const conversation = new Conversation();
      loadIntoConversation(resumed.value, conversation, new Journal());
      const history = [...conversation.history];
      compactFileStates(history);
      resume.push(performance.now() - started);
      const used = process.cpuUsage(cpu);
      resumeCpu.push((used.user + used.system) / 1000);
      messages = history.length;
      recorder.close();
    }

    const listing: number[] = [];
    for (let i = 0; i < RESUME_RUNS; i++) {
      const started = performance.now();
      if (store.list().sessions[0]?.turns !== TURNS) throw new Error("the list lost the session's turns");
      listing.push(performance.now() - started);
    }

    // The same resume answered by a real server (the store found through XDG_STATE_HOME).
    const client = await startServer({ root, style: "helix", env: { XDG_STATE_HOME: stateDir } });
    const roundTrips: number[] = [];
    try {
      for (let i = 0; i < RESUME_RUNS; i++) {
        const started = performance.now();
        const reply = await client.command("resume", { session_id: id });
        roundTrips.push(performance.now() - started);
        if (!reply.ok) throw new Error(`lockstep.resume failed: ${JSON.stringify(reply)}`);
      }
    } finally {
      await client.shutdown();
    }
    const kb = (bytes / 1024).toFixed(0);
    const sorted = [...samples].sort((a, b) => a - b);
    const us = (ms: number): string => `${Math.round(ms * 1000)} µs`;
    return [
      timingRow(
        `session store: write one turn (${TURNS}-turn session)`,
        samples,
        `encode + one write (fdatasync off the thread): median ${us(sorted[sorted.length >> 1]!)}, max ${us(sorted.at(-1)!)}; file ${kb} KB; target < 5 ms`,
      ),
      timingRow(
        `session store: resume a ${TURNS}-turn session (in process)`,
        resume,
        `read + parse + history (${messages} messages) + journal + compaction; target < 100 ms`,
      ),
      timingRow(
        `the same resume, CPU time of the process`,
        resumeCpu,
        "wall time above includes waiting for a loaded machine's cores",
      ),
      timingRow(
        `session store: list it (summary: messages and blobs unparsed)`,
        listing,
        "lockstep sessions, lockstep.sessions, ask --continue",
      ),
      timingRow(`lockstep.resume of it, LSP round trip`, roundTrips, "spawned server, test client"),
    ];
  } finally {
    await removeWorkspace(root);
    if (process.env["KEEP_BENCH_SESSIONS"] === undefined) rmSync(stateDir, { recursive: true, force: true });
    else process.stderr.write(`kept ${stateDir}\n`);
  }
}

// The Gemini API key: without one the agent says which variable to set and the
// tools keep working; with one, its value never leaves the request header — not
// in the debug log, the transcript or any notification, even when the endpoint
// echoes it back in an error.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import {
  patchCall,
  readCall,
  replaceLineDiff,
  sha256Hex,
  startAgent,
  TEST_API_KEY,
  turn,
} from "../support/agent-scripts.js";
import { stopAllServers } from "../support/lsp-client.js";
import { eventually } from "../support/poll.js";

afterEach(stopAllServers);

const A = ["export function area(w: number, h: number): number {", "  return w * h;", "}", ""].join("\n");

describe("no API key", () => {
  it("fails the job with a message naming GEMINI_API_KEY, and lockstep.read_file still works", async () => {
    const rig = await startAgent({
      files: { "a.ts": A },
      noKey: true,
      script: [turn({ text: ["unreachable"] })],
    });
    const id = await rig.ask("hello");
    const job = await rig.finished(id);
    expect(job.status).toBe("failed");
    expect(job.error?.code).toBe("no_api_key");
    expect(job.error?.message).toContain("GEMINI_API_KEY");
    expect(rig.events(id).find((e) => e.kind === "done")).toMatchObject({
      status: "failed",
      message: expect.stringContaining("GEMINI_API_KEY"),
    });
    expect(rig.fake!.requests).toHaveLength(0);

    const read = await rig.client.command("read_file", { file_path: "a.ts" });
    expect(read).toMatchObject({ ok: true, data: { content: A, sha256: sha256Hex(A) } });
  });
});

describe("the key's value", () => {
  it("appears nowhere: not in --debug stderr, the transcript or any notification", async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), "lockstep-transcript-"));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const transcript = path.join(dir, "chat.md");
    const rig = await startAgent({
      files: { "a.ts": A },
      args: ["--debug"],
      initializationOptions: { approval: "auto", transcript },
      script: [
        // A rate limit first, so the retry path runs too.
        { status: 429, message: "Quota exceeded.", retryDelay: "0.05s" },
        turn({ text: ["Reading."], calls: [readCall("a.ts")] }),
        turn({
          calls: [
            patchCall("a.ts", replaceLineDiff("a.ts", A, "  return w * h;", "  return h * w;"), sha256Hex(A)),
          ],
        }),
        turn({ text: ["Swapped."] }),
        // The second run: the endpoint answers with an error that quotes the key.
        { status: 400, message: `API key not valid. Please pass a valid API key. (got ${TEST_API_KEY})` },
      ],
    });
    await rig.client.open("a.ts");
    const first = await rig.finished(await rig.ask("swap the factors"), 15_000);
    expect(first.status).toBe("done");
    const secondId = await rig.ask("and again");
    const second = await rig.finished(secondId);
    expect(second.status).toBe("failed");
    expect(second.error?.message).toContain("API key not valid");

    // The key did reach the endpoint, in its header.
    expect(rig.fake!.requests.map((r) => r.apiKeySuffix)).toEqual(Array(5).fill(TEST_API_KEY.slice(-4)));

    // The transcript ends with the second run's end.
    let text = "";
    await eventually(
      async () => (text = await readFile(transcript, "utf8").catch(() => "")).includes("*(failed"),
      "the second run's end in the transcript",
    );
    expect(text).toContain("Swapped.");
    expect(text).toContain("*(failed");
    expect(rig.client.stderr).toContain("lockstep.ask");

    const where = {
      stderr: rig.client.stderr,
      transcript: text,
      notifications: JSON.stringify(rig.client.notifications),
      requests: JSON.stringify(rig.client.requests),
      job: JSON.stringify([first, second]),
    };
    for (const [place, content] of Object.entries(where))
      expect({ place, leaked: content.includes(TEST_API_KEY) }).toEqual({ place, leaked: false });
  });
});

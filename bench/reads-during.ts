// The responsiveness benches' probe (responsive.ts, envelope-responsive.ts): a small read_file
// timed on a server, idle or while one large job runs on the same server.
import type { Envelope } from "../test/support/lsp-client/envelope.js";
import type { TestClient } from "../test/support/lsp-client.js";

/** Milliseconds one read_file of `small.ts` takes; a failed read fails the bench. */
export async function timedRead(client: TestClient): Promise<number> {
  const began = performance.now();
  const r = await client.command("read_file", { file_path: "small.ts" });
  if (!r.ok) throw new Error(`read_file failed: ${JSON.stringify(r.error)}`);
  return performance.now() - began;
}

/**
 * Starts `job` and times a read every `pauseMs` until it answers: the reads' waits and the job's own
 * time. A job that answers with an error fails the bench, named by `what` ("the large patch").
 */
export async function readsDuring(
  client: TestClient,
  job: () => Promise<Envelope>,
  what: string,
  pauseMs: number,
): Promise<{ waits: number[]; jobMs: number }> {
  const waits: number[] = [];
  const began = performance.now();
  let done = false;
  const answered = job().then((r) => {
    done = true;
    if (!r.ok) throw new Error(`${what} failed: ${JSON.stringify(r.error).slice(0, 300)}`);
    return performance.now() - began;
  });
  while (!done) {
    waits.push(await timedRead(client));
    await new Promise((r) => setTimeout(r, pauseMs));
  }
  return { waits, jobMs: await answered };
}

// Runs one agent job through the server's own commands, as a client without
// lockstep/stream would: lockstep.ask, then lockstep.job until it stops running.
import { setTimeout as sleep } from "node:timers/promises";
import type { TestClient } from "./lsp-client.js";

/** Asks `prompt` and returns the job's data once its status is no longer "running". */
export async function askUntilDone(client: TestClient, prompt: string): Promise<Record<string, unknown>> {
  const started = await client.command("ask", { prompt });
  const id = String(started.data?.["job_id"]);
  for (;;) {
    const job = await client.command("job", { job_id: id });
    if (job.data?.["status"] !== "running") return job.data ?? {};
    await sleep(20);
  }
}

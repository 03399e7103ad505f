// Starting and stopping servers under test: startServer (initialize and
// initialized sent), launch (a new workspace and a server on it), and the
// afterEach cleanup that kills whatever still runs and removes the workspaces.
import type { StartOptions } from "./options.js";
import { liveClients, TestClient } from "./test-client.js";
import { createWorkspace, removeAllWorkspaces } from "./workspaces.js";

/** Kills every server a test started and did not stop (call it in afterEach). */
export async function stopAllServers(): Promise<void> {
  await Promise.all([...liveClients].map((c) => c.kill()));
}

/** Kills every server still running and removes every workspace createWorkspace made (afterEach). */
export async function cleanup(): Promise<void> {
  await stopAllServers();
  await removeAllWorkspaces();
}

/** A workspace holding `files` and a server started on it. */
export async function launch(
  files: Record<string, string | Uint8Array>,
  options: Omit<StartOptions, "root">,
): Promise<TestClient> {
  return startServer({ ...options, root: await createWorkspace(files) });
}

export async function startServer(options: StartOptions): Promise<TestClient> {
  const client = new TestClient(options);
  liveClients.add(client);
  try {
    await client.initialize();
  } catch (error) {
    await client.kill();
    throw error;
  }
  return client;
}

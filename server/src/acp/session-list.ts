// session/list: the sessions of one cwd's store, or, with no cwd, of every project's store
// under the state directory, newest first, in pages. The cursor is opaque to the client (the
// spec's word): the offset of the next page, checked when it comes back.
import { RequestError, type ListSessionsResponse } from "@agentclientprotocol/sdk";
import type { SessionStore } from "../sessions/index.js";

/** Sessions per page. */
export const PAGE_SIZE = 50;

/** `stores` with the cwd each one's sessions are listed under (the client's, or the stored root). */
export async function listSessions(
  stores: readonly { store: SessionStore; cwd: string }[],
  cursor: string | null | undefined,
): Promise<ListSessionsResponse> {
  const start = offsetOf(cursor);
  const all = [];
  // Streamed past blobs and messages, the event loop served between files (the store's listAsync).
  for (const { store, cwd } of stores)
    for (const s of (await store.listAsync()).sessions) all.push({ s, cwd });
  all.sort((a, b) =>
    a.s.updated < b.s.updated ? 1 : a.s.updated > b.s.updated ? -1 : a.s.id < b.s.id ? 1 : -1,
  );
  const page = all.slice(start, start + PAGE_SIZE);
  const next =
    start + PAGE_SIZE < all.length
      ? Buffer.from(`lockstep:${start + PAGE_SIZE}`).toString("base64url")
      : undefined;
  return {
    sessions: page.map(({ s, cwd }) => ({
      sessionId: s.id,
      cwd,
      title: s.title === "" ? null : s.title,
      updatedAt: s.updated,
      _meta: { lockstep: { runs: s.runs, turns: s.turns, files_changed: s.files_changed, live: s.live } },
    })),
    ...(next !== undefined ? { nextCursor: next } : {}),
  };
}

function offsetOf(cursor: string | null | undefined): number {
  if (cursor === undefined || cursor === null) return 0;
  const match = /^lockstep:(\d{1,9})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  if (!match)
    throw RequestError.invalidParams(
      { cursor },
      "cursor is not one lockstep gave: pass the nextCursor of the previous session/list answer, or none for the first page.",
    );
  return Number(match[1]);
}

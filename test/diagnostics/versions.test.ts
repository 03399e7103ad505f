// Which text a wrapped server's list speaks for: its own version when it names one; else the
// last text it was sent, only when that is the one text sent since its previous list.
import { describe, expect, it } from "vitest";
import { SentVersions } from "../../server/src/diagnostics/versions.js";

const URI = "file:///p/a.ts";
const open = (version: number) =>
  [
    "textDocument/didOpen",
    { textDocument: { uri: URI, languageId: "typescript", version, text: "" } },
  ] as const;
const change = (version: number) =>
  ["textDocument/didChange", { textDocument: { uri: URI, version }, contentChanges: [] }] as const;
const list = (version?: number) => ({
  uri: URI,
  diagnostics: [],
  ...(version !== undefined ? { version } : {}),
});

type Step = readonly [string, unknown];

describe("SentVersions", () => {
  it.each<[string, Step[], ReturnType<typeof list>, number | undefined]>([
    ["the server's own version wins", [open(1), change(2), change(3)], list(2), 2],
    ["one text sent since the last list: that text's", [open(1)], list(), 1],
    ["two texts sent since the last list: cannot be told", [open(1), change(2)], list(), undefined],
    ["nothing sent: cannot be told", [], list(), undefined],
    [
      "other notifications do not count",
      [open(1), ["textDocument/didSave", { textDocument: { uri: URI } }]],
      list(),
      1,
    ],
  ])("%s", (_name, steps, published, expected) => {
    const versions = new SentVersions();
    for (const [method, params] of steps) versions.noteSent(method, params);
    expect(versions.received(published)?.attributedVersion).toBe(expected);
  });

  it("counts from the last list: after a list, the next single text is attributed again", () => {
    const versions = new SentVersions();
    versions.noteSent(...open(1));
    versions.noteSent(...change(2));
    expect(versions.received(list())?.attributedVersion).toBeUndefined();
    versions.noteSent(...change(3));
    expect(versions.received(list())?.attributedVersion).toBe(3);
  });

  it("a document re-opened for a restarted server is the one text it has", () => {
    const versions = new SentVersions();
    versions.noteSent(...open(1));
    versions.noteSent(...change(2));
    versions.reopened(URI, 7);
    expect(versions.received(list())?.attributedVersion).toBe(7);
  });

  it("ignores a malformed publish", () => {
    expect(new SentVersions().received({ uri: URI })).toBeUndefined();
    expect(new SentVersions().received(null)).toBeUndefined();
  });
});

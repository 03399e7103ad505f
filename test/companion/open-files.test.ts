// ide/contextUpdate's payload: most recently opened or changed first, ten at most,
// only files on disk, one announcement per burst, none when nothing moved.
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import {
  CONTEXT_DEBOUNCE_MS,
  MAX_OPEN_FILES,
  OpenFiles,
  type IdeContext,
} from "../../server/src/companion/open-files.js";

const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), "lockstep-open-files-")));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const file = (name: string): string => {
  const p = path.join(dir, name);
  writeFileSync(p, name);
  return p;
};

/** Collects announcements; `next()` resolves with the next one. */
function recorder(): { files: OpenFiles; seen: IdeContext[]; next(): Promise<IdeContext> } {
  const seen: IdeContext[] = [];
  let wake: (() => void) | undefined;
  const files = new OpenFiles((context) => {
    seen.push(context);
    wake?.();
  });
  return {
    files,
    seen,
    next: () => {
      const count = seen.length;
      return new Promise<IdeContext>((resolve) => {
        wake = () => {
          if (seen.length > count) resolve(seen[seen.length - 1]!);
        };
      });
    },
  };
}

const paths = (c: IdeContext): string[] => c.workspaceState.openFiles.map((f) => f.path);

describe("open files for ide/contextUpdate", () => {
  it("announces a burst once, most recent first, the first one active, only files on disk", async () => {
    const r = recorder();
    const [a, b] = [file("a.ts"), file("b.ts")];
    const next = r.next();
    r.files.touch(a);
    r.files.touch(path.join(dir, "never-saved.ts"));
    r.files.touch(b);
    r.files.touch(a);
    const context = await next;
    expect(r.seen).toHaveLength(1);
    expect(paths(context)).toEqual([a, b]);
    expect(context.workspaceState.openFiles.map((f) => f.isActive)).toEqual([true, undefined]);
    r.files.dispose();
  });

  it("keeps the ten most recent and drops closed files", async () => {
    const r = recorder();
    const names = Array.from({ length: MAX_OPEN_FILES + 2 }, (_, i) => file(`f${i}.ts`));
    let next = r.next();
    for (const n of names) r.files.touch(n);
    expect(paths(await next)).toEqual([...names].reverse().slice(0, MAX_OPEN_FILES));
    next = r.next();
    r.files.closed(names[names.length - 1]!);
    expect(paths(await next)[0]).toBe(names[names.length - 2]);
    r.files.dispose();
  });

  it("stays quiet when typing leaves the order as it was; an agent that connects still hears the context", () => {
    vi.useFakeTimers();
    try {
      const r = recorder();
      const [a, b] = [file("x.ts"), file("y.ts")];
      r.files.touch(a);
      r.files.touch(b);
      vi.advanceTimersByTime(CONTEXT_DEBOUNCE_MS);
      expect(r.seen).toHaveLength(1);
      r.files.touch(b);
      vi.advanceTimersByTime(CONTEXT_DEBOUNCE_MS * 4);
      expect(r.seen).toHaveLength(1);
      r.files.announce();
      vi.advanceTimersByTime(CONTEXT_DEBOUNCE_MS);
      expect(r.seen.map(paths)).toEqual([
        [b, a],
        [b, a],
      ]);
      r.files.touch(a);
      vi.advanceTimersByTime(CONTEXT_DEBOUNCE_MS - 1);
      expect(r.seen).toHaveLength(2);
      vi.advanceTimersByTime(1);
      expect(paths(r.seen[2]!)).toEqual([a, b]);
      r.files.dispose();
    } finally {
      vi.useRealTimers();
    }
  });
});

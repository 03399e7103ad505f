// The thread where patterns run. A JavaScript regular expression cannot be
// interrupted, and a pattern such as (a+)+$ can spin for minutes on one line:
// here it spins off the server's thread, which keeps answering, watches a
// counter of finished files, and ends the thread when one file takes too long,
// or when the search is cancelled. The thread is built from the source of
// line-search.ts's functions (no bundle to load) and kept for the next search.
import { Worker } from "node:worker_threads";
import { searchItem, searchLines, type ItemAnswer, type SearchItem } from "./line-search.js";

export interface BatchRequest {
  items: SearchItem[];
  source: string;
  flags: string;
  /** Matches wanted in all from this batch; the thread stops searching once it has them. */
  limit: number;
  maxBytes: number;
}

export type BatchOutcome =
  | { kind: "done"; answers: ItemAnswer[] }
  | { kind: "cancelled" }
  /** `index`: the item that took longer than the limit. */
  | { kind: "stalled"; index: number }
  | { kind: "failed"; message: string };

function workerSource(): string {
  return `"use strict";
const { parentPort, workerData } = require("node:worker_threads");
const fs = require("node:fs");
const done = new Int32Array(workerData.progress);
${searchLines.toString()}
${searchItem.toString()}
parentPort.on("message", (batch) => {
  const answers = [];
  let left = batch.limit;
  for (const item of batch.items) {
    const answer = left > 0 ? ${searchItem.name}(item, batch.source, batch.flags, left, batch.maxBytes, fs) : { matches: [], skipped: "not_reached" };
    left -= answer.matches.length;
    answers.push(answer);
    Atomics.add(done, 0, 1);
  }
  parentPort.postMessage(answers);
});
`;
}

interface Thread {
  worker: Worker;
  progress: Int32Array;
}

let idle: Thread | undefined;

function thread(): Thread {
  if (idle) {
    const t = idle;
    idle = undefined;
    return t;
  }
  const buffer = new SharedArrayBuffer(4);
  const worker = new Worker(workerSource(), { eval: true, workerData: { progress: buffer } });
  return { worker, progress: new Int32Array(buffer) };
}

/** How often the server looks at the thread's counter (ms). */
const WATCH_EVERY_MS = 50;

/** Searches one batch on the search thread; a file that runs over `fileTimeLimitMs` stops it. */
export function runBatch(request: BatchRequest, signal: AbortSignal, fileTimeLimitMs: number): Promise<BatchOutcome> {
  if (signal.aborted) return Promise.resolve({ kind: "cancelled" });
  const t = thread();
  const { worker, progress } = t;
  worker.ref();
  const startCount = Atomics.load(progress, 0);
  return new Promise<BatchOutcome>((resolve) => {
    let last = startCount;
    let lastChange = performance.now();
    const finish = (outcome: BatchOutcome, keep: boolean): void => {
      clearInterval(watch);
      signal.removeEventListener("abort", abort);
      worker.off("message", answered);
      worker.off("error", failed);
      if (keep) {
        worker.unref();
        idle ??= t;
        if (idle !== t) void worker.terminate();
      } else void worker.terminate();
      resolve(outcome);
    };
    const answered = (answers: ItemAnswer[]): void => finish({ kind: "done", answers }, true);
    const failed = (error: Error): void => finish({ kind: "failed", message: error.message }, false);
    const abort = (): void => finish({ kind: "cancelled" }, false);
    const watch = setInterval(() => {
      const now = Atomics.load(progress, 0);
      if (now !== last) {
        last = now;
        lastChange = performance.now();
      } else if (performance.now() - lastChange > fileTimeLimitMs) {
        finish({ kind: "stalled", index: now - startCount }, false);
      }
    }, WATCH_EVERY_MS);
    signal.addEventListener("abort", abort, { once: true });
    worker.on("message", answered);
    worker.once("error", failed);
    worker.postMessage(request);
  });
}

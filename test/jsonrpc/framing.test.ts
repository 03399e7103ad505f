// The frame reader both modes use: frames read whole however the bytes are cut,
// their bytes kept as they came, and a stream out of step named once. (How long a
// large body takes is in the bench, not here.)
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { readFrames, wellFramed, writeFrame, type Frame } from "../../server/src/jsonrpc/framing.js";

const frame = (body: string): Buffer =>
  Buffer.concat([Buffer.from(`Content-Length: ${Buffer.byteLength(body)}\r\n\r\n`), Buffer.from(body)]);

function reader(): { input: PassThrough; frames: Frame[]; broken: [string, boolean][] } {
  const input = new PassThrough();
  const frames: Frame[] = [];
  const broken: [string, boolean][] = [];
  readFrames(
    input,
    (f) => frames.push(f),
    (why, inHeader) => broken.push([why, inHeader]),
  );
  return { input, frames, broken };
}

describe("readFrames", () => {
  it("reads frames whole, cut anywhere (one byte at a time, or several in a chunk), keeping their bytes", () => {
    const bodies = [
      '{"jsonrpc":"2.0","id":1,"method":"a","params":{"text":"é ✓"}}',
      '{"jsonrpc":"2.0","method":"b"}',
      '{"jsonrpc":"2.0","id":"x","result":null}',
    ];
    const bytes = Buffer.concat(bodies.map(frame));
    for (const cut of [1, 7, bytes.length]) {
      const r = reader();
      for (let at = 0; at < bytes.length; at += cut) r.input.write(bytes.subarray(at, at + cut));
      expect(r.frames.map((f) => f.raw.toString("utf8"))).toEqual(bodies);
      expect(r.frames[0]!.message).toMatchObject({ id: 1, method: "a", params: { text: "é ✓" } });
      expect(r.broken).toEqual([]);
    }
  });

  it("reads a 20 MB body sent in 64 KB chunks", () => {
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, result: "x".repeat(20 * 1024 * 1024) });
    const bytes = frame(body);
    const r = reader();
    for (let at = 0; at < bytes.length; at += 65536) r.input.write(bytes.subarray(at, at + 65536));
    expect(r.frames).toHaveLength(1);
    expect(r.frames[0]!.raw.equals(Buffer.from(body))).toBe(true);
  });

  it("names a stream out of step once and reads no further: a header without Content-Length, a body that is not JSON, no header end", () => {
    const noLength = reader();
    noLength.input.write("Content-Type: x\r\n\r\n{}");
    noLength.input.write(frame('{"jsonrpc":"2.0","method":"later"}'));
    expect(noLength.broken).toEqual([[expect.stringContaining("without Content-Length"), true]]);
    expect(noLength.frames).toEqual([]);

    const notJson = reader();
    notJson.input.write(
      Buffer.concat([
        Buffer.from('Content-Length: 5\r\n\r\n{"jso'),
        frame('{"jsonrpc":"2.0","method":"later"}'),
      ]),
    );
    expect(notJson.broken).toEqual([[expect.stringContaining("not JSON"), false]]);

    const array = reader();
    array.input.write(frame("[1,2]"));
    expect(array.broken).toEqual([[expect.stringContaining("not a JSON-RPC message"), false]]);

    const endless = reader();
    endless.input.write("x".repeat(70 * 1024));
    expect(endless.broken).toEqual([[expect.stringContaining("no header end"), true]]);
  });
});

describe("readFrames with invalid bodies answered", () => {
  function answering(): {
    input: PassThrough;
    frames: Frame[];
    broken: string[];
    invalid: [number, string, unknown][];
  } {
    const input = new PassThrough();
    const r = {
      input,
      frames: [] as Frame[],
      broken: [] as string[],
      invalid: [] as [number, string, unknown][],
    };
    readFrames(
      input,
      (f) => r.frames.push(f),
      (why) => r.broken.push(why),
      { invalid: (code, message, id) => r.invalid.push([code, message, id]) },
    );
    return r;
  }

  it("answers a well-framed body that is not JSON, or not a message, and reads the next frame", () => {
    const r = answering();
    r.input.write(
      Buffer.concat([
        frame("{not json"),
        frame("[1]"),
        frame('{"id":3}'),
        frame(""),
        frame('{"jsonrpc":"2.0","method":"later"}'),
      ]),
    );
    expect(r.invalid).toEqual([
      [-32700, expect.stringContaining("not JSON"), null],
      [-32600, expect.stringContaining("not a JSON-RPC message"), null],
      [-32600, expect.stringContaining("not a JSON-RPC message"), 3],
      [-32700, expect.stringContaining("not JSON"), null],
    ]);
    expect(r.frames.map((f) => f.message)).toEqual([{ jsonrpc: "2.0", method: "later" }]);
    expect(r.broken).toEqual([]);
  });

  it("still breaks on a body cut by a too-short Content-Length, whether its rest comes with it or after it", () => {
    const together = answering();
    together.input.write('Content-Length: 5\r\n\r\n{"jsonrpc":"2.0","method":"x"}');
    expect(together.broken).toEqual([expect.stringContaining("not JSON")]);
    expect(together.invalid).toEqual([]);

    const after = answering();
    after.input.write('Content-Length: 5\r\n\r\n{"jso');
    after.input.write('nrpc":"2.0","method":"x"}' + frame('{"jsonrpc":"2.0","method":"y"}').toString());
    // The cut head alone looked well framed (answered); its rest is seen as soon as it comes, before any header end.
    expect(after.invalid).toEqual([[-32700, expect.stringContaining("not JSON"), null]]);
    expect(after.broken).toEqual([expect.stringContaining("cannot start a header")]);
    expect(after.frames).toEqual([]);
  });

  it("breaks on garbage where a header should start as soon as it arrives, with no header end yet", () => {
    const r = answering();
    r.input.write(frame('{"jsonrpc":"2.0","method":"first"}') + "hello world");
    expect(r.frames.map((f) => f.message)).toEqual([{ jsonrpc: "2.0", method: "first" }]);
    expect(r.broken).toEqual([expect.stringContaining("cannot start a header")]);
  });

  it("answers -32600 with the id the object named, a string or a number, and null for any other id", () => {
    const r = answering();
    r.input.write(
      Buffer.concat([
        frame('{"id":"a"}'),
        frame('{"id":4,"params":[]}'),
        frame('{"id":{"x":1}}'),
        frame("null"),
      ]),
    );
    expect(r.invalid.map(([code, , id]) => [code, id])).toEqual([
      [-32600, "a"],
      [-32600, 4],
      [-32600, null],
      [-32600, null],
    ]);
  });

  it("wellFramed: nothing yet, or a header's field name (any, of any case) and its colon, however little of it has come", () => {
    for (const rest of ["", "C", "content-le", "Content-Length: 3\r\n", "X-Other: 1", "x"])
      expect(wellFramed(Buffer.from(rest))).toBe(true);
    for (const rest of ['nrpc":"2.0"}', " Content", ": 3", "}", "hello world", '2.0","id":1}'])
      expect(wellFramed(Buffer.from(rest))).toBe(false);
  });
});

describe("writeFrame", () => {
  it("writes given bytes unchanged and a message serialised, each with its Content-Length in bytes", () => {
    const out = new PassThrough();
    const raw = Buffer.from('{"jsonrpc":"2.0","method":"é"}');
    writeFrame(out, raw);
    writeFrame(out, { jsonrpc: "2.0", method: "ü" } as never);
    const written = (out.read() as Buffer).toString("utf8");
    expect(written).toBe(
      `Content-Length: ${raw.length}\r\n\r\n${raw.toString("utf8")}Content-Length: ${Buffer.byteLength('{"jsonrpc":"2.0","method":"ü"}')}\r\n\r\n{"jsonrpc":"2.0","method":"ü"}`,
    );
  });
});

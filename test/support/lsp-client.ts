// A test client that spawns the real server (`node bin/lockstep.js --stdio`)
// and drives it over stdio the way Helix, Neovim or eglot does (facts from
// the shared EDITORS.md). It owns buffers, applies the server's
// WorkspaceEdits to them itself and sends didChange when, and only when, the
// imitated editor would. No vitest import: bench/server.ts uses it too.
//
// API (stable; other tests build on it)
//   startServer({root, style, initializationOptions?, env?, showMessageRequest?,
//                configuration?, args?, workDoneProgress?, beforeApplyEdit?})
//     → TestClient, initialized (initialize + initialized sent).
//     style "helix" | "neovim" | "eglot" | "no-apply-edit" decides the client
//     capabilities and how workspace/applyEdit is answered:
//       helix:  stale TextDocumentEdit.version → {applied:false, failureReason, failedChange};
//               else apply, send didChange, then reply {applied:true}.
//       neovim: stale version on the FIRST documentChanges entry → skipped silently,
//               reply still {applied:true}; every didChange (edits and typing) is sent
//               150 ms after the first unsent change; pending changes are flushed before
//               any request the client makes (changetracking.flush); pass
//               {flush:false} to command() to imitate a request from another buffer.
//       eglot:  stale → JSON-RPC error "Edits on `F' require version N, you have M";
//               else apply and reply; the didChange waits for client.flush() (the
//               0.5 s idle timer that never fires while Emacs waits on the server).
//               Typing flushes pending changes, then sends its own at once.
//       no-apply-edit: no workspace.applyEdit capability.
//     A TextDocumentEdit for a file that is not open loads it from disk into a hidden
//     buffer (unsaved, disk untouched). Helix and eglot announce it with didOpen
//     (version 0) and then treat it like any buffer; Neovim keeps it unattached until
//     open(). CreateFile (helix, neovim) creates an empty file on disk, like they do;
//     DeleteFile (helix, neovim) removes it and closes its buffer.
//     showMessageRequest: answers window/showMessageRequest; when absent,
//     window.showMessage is not advertised. configuration: the whole settings tree
//     ({lockstep: {...}}) answering workspace/configuration; when absent, not advertised.
//     workDoneProgress: advertise window.workDoneProgress (default: helix, neovim).
//   client.open(rel, text?, languageId?)   didOpen, version 1, text defaults to disk
//   client.type(rel, find, replace)        the user types (first occurrence of find);
//                                          resolves when the didChange has been sent
//   client.change(rel, edits)              the user makes several edits at once
//   client.buffer(rel)                     {uri, rel, version, text, hidden, attached} | undefined
//   client.close(rel) / client.save(rel)
//   client.command(name, arg?, {flush?})   workspace/executeCommand; name with or without
//                                          "lockstep."; arg undefined → no arguments → Envelope
//   client.request(method, params)         any raw request
//   client.codeActions(rel, range?, diagnostics?) / client.runCodeAction(action)
//   client.notifications                   [{method, params}] received, in order
//   client.waitForNotification(method, predicate?, timeoutMs = WAIT_MS, from = 0)
//                                          first match at index ≥ from, already received or not
//   client.requests / waitForRequest(...)  server → client requests, with what was answered
//   client.applyEditRequests               [{params, reply?, error?, skipped}] per applyEdit
//   client.sent                            client → server notifications, in order
//   client.flush() / client.settled()      send pending didChanges now / wait for debounced ones
//   client.shutdown()                      shutdown + exit → the process's exit code
//   client.exitWithoutShutdown() / client.disconnect() (closes the pipes) → exit code
//   client.kill()                          SIGKILL the server; client.stderr, client.pid
//   launch(files, options)                 createWorkspace(files) + startServer
//   cleanup()                              kills every server still running and removes the
//                                          workspaces createWorkspace made (afterEach(cleanup))
//   serverEntry() (the script a server is started from),
//   createWorkspace(files) / removeWorkspace(root), sha256(text), applyTextEdits(text, edits),
//   offsetAt / positionAt / rangeOf / wholeRange / lineStarts (UTF-16 positions; lines end at
//   \n, \r\n or \r), stateOf(envelope) (the file state in a reply), stopAllServers()
//   Types: Envelope, Data, FileState, EditorStyle, StartOptions, BufferView, ApplyEditRecord,
//   RequestRecord, Message.
//
// This file is the stable import path; the code is in lsp-client/:
//   text.ts         positions, rangeOf, applyTextEdits
//   envelope.ts     Envelope, FileState, stateOf, sha256
//   workspaces.ts   createWorkspace / removeWorkspace
//   options.ts      EditorStyle, StartOptions, each style's capabilities, serverEntry
//   buffers.ts      the buffers and when each style sends didChange
//   apply-edit.ts   how each style carries out a WorkspaceEdit
//   test-client.ts  TestClient: the process, the connection, requests both ways
//   launch.ts       startServer, launch, stopAllServers, cleanup
export type { ApplyEditRecord } from "./lsp-client/apply-edit.js";
export type { BufferView } from "./lsp-client/buffers.js";
export { sha256, stateOf, type Data, type Envelope, type FileState } from "./lsp-client/envelope.js";
export { cleanup, launch, startServer, stopAllServers } from "./lsp-client/launch.js";
export { serverEntry, type EditorStyle, type StartOptions } from "./lsp-client/options.js";
export { TestClient, WAIT_MS, type Message, type RequestRecord } from "./lsp-client/test-client.js";
export { applyTextEdits, lineStarts, offsetAt, positionAt, rangeOf, wholeRange } from "./lsp-client/text.js";
export { createWorkspace, removeWorkspace } from "./lsp-client/workspaces.js";

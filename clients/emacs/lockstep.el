;;; lockstep.el --- Eglot client for the lockstep coding agent -*- lexical-binding: t; -*-

;; Author: lockstep contributors
;; Version: 0.1.0
;; Package-Requires: ((emacs "27.1") (eglot "1.9"))
;; Keywords: tools, languages, convenience
;; SPDX-License-Identifier: MIT

;; This file is not part of GNU Emacs.

;;; Commentary:

;; lockstep is a language server whose coding agent makes state-verified
;; file edits: every write names the file state it was built on, and a
;; write against a state that is no longer current is refused.
;;
;; This package registers lockstep with Eglot for `lockstep-major-modes',
;; renders the agent's streamed answers in the *lockstep* buffer, and
;; offers the commands `lockstep-ask', `lockstep-apply-edit-blocks',
;; `lockstep-cancel', `lockstep-session' and `lockstep-reset-session'.
;; With the setting :approval "review", the agent's changes wait hunk by
;; hunk: `lockstep-review' lists them, `lockstep-accept' and
;; `lockstep-reject' decide the hunk at point (with C-u, the whole file),
;; and `lockstep-revert' undoes a run.
;; Everything else comes through `eglot-code-actions'.
;;
;; Eglot runs ONE server per major mode and project: in a buffer whose
;; mode is in `lockstep-major-modes', lockstep is that buffer's server,
;; instead of (not beside) pyright, gopls and the like.  The commands
;; above also work from other buffers of a project in which a lockstep
;; server runs.
;;
;; To keep your own language server in a mode, wrap it: after
;;   (lockstep-wrap 'python-mode "pyright-langserver" "--stdio")
;; Eglot starts `lockstep --stdio --wrap -- pyright-langserver --stdio'
;; for python-mode, one server to Eglot with pyright's completion,
;; hover and diagnostics and lockstep's commands and agent.
;; `lockstep-wrap-all' wraps every plain command of
;; `eglot-server-programs'.
;;
;; The package is this file and the files beside it, which it loads:
;; lockstep-approval.el and lockstep-approval-details.el (the approval
;; questions), lockstep-wrap.el (wrap mode), lockstep-chat.el (the chat buffer and
;; the agent commands), lockstep-review.el (review), lockstep-revert.el
;; (`lockstep-revert'), lockstep-session-view.el (`lockstep-session')
;; and lockstep-sessions.el (stored sessions).
;; Load this one.

;;; Code:

(require 'cl-lib)
(require 'eglot)
(require 'jsonrpc)
(require 'project)

(declare-function eglot-execute "eglot" (server action))

(defgroup lockstep nil
  "The lockstep coding agent, through Eglot."
  :group 'tools
  :prefix "lockstep-")

(defun lockstep--set-and-register (symbol value)
  "Set SYMBOL to VALUE and register lockstep with Eglot again."
  (set-default symbol value)
  (when (fboundp 'lockstep-register)
    (lockstep-register)))

(defcustom lockstep-server-command '("lockstep" "--stdio")
  "The command that starts the lockstep server.
From a checkout without a global install, use
\(\"node\" \"/path/to/lockstep/bin/lockstep.js\" \"--stdio\")."
  :type '(repeat string))

(defcustom lockstep-major-modes '(markdown-mode gfm-mode text-mode)
  "Major modes whose buffers lockstep manages.
Eglot runs one server per major mode and project, so for these
modes lockstep replaces the language server Eglot would otherwise
start.  Modes derived from a listed mode are included, so
`prog-mode' and `text-mode' cover nearly every buffer.  Set this
with `customize' or `setopt', or call `lockstep-register' after
`setq'."
  :type '(repeat symbol)
  :initialize #'custom-initialize-default
  :set #'lockstep--set-and-register)

(defcustom lockstep-settings nil
  "Settings sent to the server, as a plist.
They are the initializationOptions and the answer to the
`lockstep' section of workspace/configuration (unless
`eglot-workspace-configuration' has a :lockstep section, which
wins).  Keys:
  :model STRING            the model to use
  :approval \"ask\"|\"auto\"|\"review\"
                           ask before the agent modifies a file, or
                           not, or stage its changes hunk by hunk
                           for `lockstep-review'
  :closedFileEdits \"editor\"|\"disk\"
                           edits to unvisited files: buffers or disk
  :transcript FILE         markdown transcript of the session
  :diagnosticsWaitMs MS    wrap mode: how long a change's answer waits
                           for the wrapped server's diagnostics (0: not)
  :debug t|:json-false     log every tool call"
  :type '(plist :key-type (choice (const :model) (const :approval)
                                  (const :closedFileEdits)
                                  (const :transcript)
                                  (const :diagnosticsWaitMs) (const :debug))
                :value-type sexp))

(defcustom lockstep-chat-buffer-name "*lockstep*"
  "Name of the buffer where the agent's answers are rendered."
  :type 'string)

;;;; The server class and its registration

(defclass lockstep-server (eglot-lsp-server) ()
  :documentation "An Eglot connection to the lockstep server.")

(defun lockstep--settings-object ()
  "`lockstep-settings' as a JSON object, empty when unset."
  (or lockstep-settings (make-hash-table)))

(cl-defmethod eglot-client-capabilities ((_server lockstep-server))
  "Add that Eglot answers window/showMessageRequest and lockstep/approve.
Eglot prompts in the minibuffer but does not say so, and lockstep
asks for approvals only of clients that do."
  (let* ((capabilities (copy-sequence (cl-call-next-method)))
         (window (copy-sequence (plist-get capabilities :window))))
    ;; The approval question with the diffs in it (lockstep-approval.el), and a
    ;; command's and an MCP call's question with their details; buffers saved
    ;; before the agent runs a command (lockstep-command.el).
    (plist-put capabilities :experimental
               '(:lockstepApproval t :lockstepApprovalKinds ["command" "call"]
                 :lockstep (:saveFiles t)))
    (plist-put capabilities :window
               (plist-put window :showMessage
                          '(:messageActionItem
                            (:additionalPropertiesSupport :json-false))))))

(cl-defmethod eglot-initialization-options ((_server lockstep-server))
  "Send `lockstep-settings' as the initializationOptions."
  (lockstep--settings-object))

(cl-defmethod eglot-handle-request
  ((_server lockstep-server) (_method (eql workspace/configuration))
   &key items)
  "Answer ITEMS, filling the `lockstep' section from `lockstep-settings'.
`eglot-workspace-configuration' wins when it has a :lockstep section."
  (let ((answers (append (cl-call-next-method) nil)))
    (apply #'vector
           (cl-mapcar (lambda (item answer)
                        (if (and (null answer)
                                 (equal (plist-get item :section) "lockstep"))
                            (lockstep--settings-object)
                          answer))
                      (append items nil) answers))))

(defun lockstep--send-changes (server)
  "Send SERVER the changes not yet sent of each buffer it manages.
Eglot sends didChange on an idle timer, which has not always run
when a command or a reply goes out."
  (when (fboundp 'eglot--signal-textDocument/didChange)
    (dolist (buffer (eglot--managed-buffers server))
      (with-current-buffer buffer
        ;; It sends nothing for a buffer without changes.
        (eglot--signal-textDocument/didChange)))))

(cl-defmethod eglot-handle-request :after
  ((server lockstep-server) (_method (eql workspace/applyEdit)) &rest _)
  "Tell SERVER of the buffers its edit changed now, before the reply.
Eglot sends didChange on an idle timer, which does not run while
a command waits for its answer: the server would learn of its own
edit only after the command ended, and a wrapped server's
diagnostics of the new text (`diagnostics_after') could not come
in time."
  (lockstep--send-changes server))

;; Wrap mode's server: lockstep-wrap.el makes the contacts that start
;; it, and `lockstep-register' keeps their entries first.
(defclass lockstep-wrap-server (lockstep-server) ()
  :documentation "An Eglot connection to lockstep wrapping another server.")

(cl-defmethod eglot-initialization-options ((_server lockstep-wrap-server))
  "Send `lockstep-settings' under the `lockstep' key.
The wrapped server gets initializationOptions without that key."
  (list :lockstep (lockstep--settings-object)))

(defvar lockstep--wrap-contacts nil
  "The contacts `lockstep-wrap' and `lockstep-wrap-all' made.")

(defun lockstep--wrap-entry-p (entry)
  "Non-nil if ENTRY of `eglot-server-programs' is a wrapped server's."
  (and (memq (cdr entry) lockstep--wrap-contacts) t))

(defun lockstep--contact (&optional _interactive)
  "Return the Eglot contact for lockstep, built anew for each server."
  (cons 'lockstep-server lockstep-server-command))

;;;###autoload
(defun lockstep-register ()
  "Make Eglot start lockstep for `lockstep-major-modes'.
Runs when this file loads; call it again after changing
`lockstep-major-modes' with `setq'.  The entries `lockstep-wrap'
put first stay ahead of it, so a wrapped mode keeps its server."
  (interactive)
  (let* ((rest (cl-remove #'lockstep--contact eglot-server-programs :key #'cdr))
         (wraps (cl-loop while (and rest (lockstep--wrap-entry-p (car rest)))
                         collect (pop rest))))
    (setq eglot-server-programs
          (append wraps
                  (list (cons lockstep-major-modes #'lockstep--contact))
                  rest))))

;; In the autoloads only: registering with Eglot when it loads.
;;;###autoload(with-eval-after-load 'eglot (require 'lockstep))

;;;; Finding the server and running commands

(defun lockstep--server-p (server)
  "Non-nil if SERVER is a live lockstep connection."
  (and server (cl-typep server 'lockstep-server) (jsonrpc-running-p server)))

(defun lockstep--server ()
  "The lockstep server for the current buffer.
That is the buffer's own Eglot server when it is lockstep, else
a lockstep server of the project holding the buffer's file."
  (let ((own (eglot-current-server))
        (here (expand-file-name (or buffer-file-name default-directory)))
        found)
    (if (lockstep--server-p own)
        own
      (maphash (lambda (_project servers)
                 (dolist (server servers)
                   (when (and (not found)
                              (lockstep--server-p server)
                              (file-in-directory-p
                               here (project-root (eglot--project server))))
                     (setq found server))))
               eglot--servers-by-project)
      (or found
          (user-error
           "[lockstep] No server for %s: visit a file in one of `%s' or a mode given to `%s', and M-x eglot"
           (abbreviate-file-name here) 'lockstep-major-modes 'lockstep-wrap)))))

(defun lockstep--error-text (error)
  "Readable text of an envelope ERROR object."
  (concat (format "%s: %s" (or (plist-get error :code) "error")
                  (or (plist-get error :message) "unknown error"))
          (mapconcat (lambda (s) (format "\n  - %s" s))
                     (plist-get error :suggestions) "")))
(defun lockstep--first-line (message)
  "The first line of MESSAGE, with an ellipsis if there is more."
  (let ((message (format "%s" (or message ""))))
    (if (string-match "\n" message)
        (concat (substring message 0 (match-beginning 0)) " …")
      message)))


(defun lockstep--unwrap (result)
  "The data of the envelope RESULT; signal a `user-error' on failure."
  (cond ((not (consp result))
         (user-error "[lockstep] The server sent no result"))
        ((eq (plist-get result :ok) t)
         (plist-get result :data))
        (t (user-error "[lockstep] %s"
                       (lockstep--error-text (plist-get result :error))))))

(defun lockstep--read-rest (server)
  "Handle what SERVER sent right behind the reply just read.
jsonrpc 1.0.14 (Emacs 28) leaves its process filter as soon as a
waited-for reply is read, and the messages that came with it wait
for the server's next output, which may never come: a change
staged for review after `lockstep-ask', the end of a job after
`lockstep-accept'.  Running the filter on no new text reads them."
  (let ((process (jsonrpc--process server)))
    (when (process-live-p process)
      (funcall (process-filter process) process ""))))

(cl-defmethod eglot-execute-command :after
  ((server lockstep-server) _command _arguments)
  "Read what SERVER sent behind the reply, for code actions too."
  (lockstep--read-rest server))

(defun lockstep--request (server command argument)
  "Run COMMAND with the one ARGUMENT object on SERVER; return its reply.
SERVER first hears of the unsaved typing in every buffer it
manages, not only the current one: the review list and the chat
are no file, and a hunk accepted there must meet the text as it is
now (else Eglot refuses the edit as made for an older version)."
  (let ((arguments (vector argument)))
    (lockstep--send-changes server)
    (if (fboundp 'eglot-execute)
        (prog1 (eglot-execute server (list :title command :command command
                                           :arguments arguments))
          (lockstep--read-rest server))
      (with-no-warnings
        (eglot-execute-command server command arguments)))))

(defun lockstep--execute (server command argument)
  "Run COMMAND with the one ARGUMENT object on SERVER; return its data."
  (lockstep--unwrap (lockstep--request server command argument)))

;;;; The rest of the package

;; The parts are loaded by file name from this file's own directory
;; rather than looked up on `load-path': that way `(require 'lockstep)'
;; from `load-path', `(load "/path/to/lockstep.el")' and `emacs -l'
;; all work with nothing more on `load-path', the parts always come
;; from the same copy as this file (never a stale one further along
;; `load-path'), and the user's `load-path' is left as it was.
;; `load-file-name' is this file (its .elc when compiled) while it
;; loads; `buffer-file-name' when its buffer is evaluated.  They are
;; loaded with `load', not `require', so that loading this file again
;; loads them again, as when the package was one file.  They do not
;; require `lockstep' back, so there is no cycle: they only call what
;; this file defines, and their commands' autoloads name this file.

(let ((directory (file-name-directory (or load-file-name buffer-file-name))))
  (dolist (part '("lockstep-approval" "lockstep-approval-details" "lockstep-wrap" "lockstep-chat" "lockstep-review" "lockstep-revert"
                  "lockstep-session-view" "lockstep-sessions" "lockstep-command"))
    (load (expand-file-name part directory) nil t)))

(lockstep-register)

(provide 'lockstep)
;;; lockstep.el ends here

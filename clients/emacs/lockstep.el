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

;;; Code:

(require 'cl-lib)
(require 'eglot)
(require 'jsonrpc)
(require 'json)
(require 'project)
(require 'diff-mode)
(require 'text-property-search)

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
  "Add that Eglot answers window/showMessageRequest.
Eglot prompts in the minibuffer but does not say so, and lockstep
asks for approvals only of clients that do."
  (let* ((capabilities (copy-sequence (cl-call-next-method)))
         (window (copy-sequence (plist-get capabilities :window))))
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

(cl-defmethod eglot-handle-request :after
  ((server lockstep-server) (_method (eql workspace/applyEdit)) &rest _)
  "Tell SERVER of the buffers its edit changed now, before the reply.
Eglot sends didChange on an idle timer, which does not run while
a command waits for its answer: the server would learn of its own
edit only after the command ended, and a wrapped server's
diagnostics of the new text (`diagnostics_after') could not come
in time."
  (when (fboundp 'eglot--signal-textDocument/didChange)
    (dolist (buffer (eglot--managed-buffers server))
      (with-current-buffer buffer
        ;; It sends nothing for a buffer without changes.
        (eglot--signal-textDocument/didChange)))))

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

;;;; Wrap mode: lockstep in front of your own language server

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

(defun lockstep--wrap-contact (command)
  "An Eglot contact: lockstep in front of the server COMMAND.
`lockstep-server-command' is read when the server starts."
  (let ((contact (lambda (&optional _interactive _project)
                   (cons 'lockstep-wrap-server
                         (append lockstep-server-command
                                 (list "--wrap" "--")
                                 command)))))
    (push contact lockstep--wrap-contacts)
    contact))

(defun lockstep--mode-specs (modes)
  "MODES of an `eglot-server-programs' entry as a list of specs.
MODES is a major mode, a spec (MODE :language-id ID), or a list
of these, as Eglot reads them."
  (if (or (symbolp modes) (keywordp (cadr modes))) (list modes) modes))

(defun lockstep--spec-with-language (spec)
  "SPEC, or the (SPEC :language-id ID) some entry of Eglot gives it."
  (or (and (symbolp spec)
           (cl-loop for (modes . _) in eglot-server-programs
                    thereis (cl-find-if (lambda (s) (eq (car-safe s) spec))
                                        (lockstep--mode-specs modes))))
      spec))

(defun lockstep--plain-command-p (contact)
  "Non-nil if CONTACT is a command list that lockstep can wrap.
That is (PROGRAM ARGS...) of strings only, not lockstep itself."
  (and (consp contact)
       (proper-list-p contact)
       (cl-every #'stringp contact)
       (not (cl-some (lambda (word)
                       (member (file-name-nondirectory word)
                               '("lockstep" "lockstep.js")))
                     contact))))

;;;###autoload
(defun lockstep-wrap (mode program &rest args)
  "Make Eglot start lockstep in front of PROGRAM with ARGS for MODE.
MODE is a major mode, a list of them, or specs as in
`eglot-server-programs' such as (js-mode :language-id
\"javascript\").  Eglot then starts
  lockstep --stdio --wrap -- PROGRAM ARGS...
\(`lockstep-server-command' followed by --wrap): one server with
PROGRAM's completion, hover and diagnostics and lockstep's
commands.  The entry goes first in `eglot-server-programs', so it
wins over the entries for MODE already there, which stay.
Example: (lockstep-wrap \\='python-mode \"pyright-langserver\" \"--stdio\")"
  (unless (lockstep--plain-command-p (cons program args))
    (user-error "[lockstep] Wrap a command of strings, not lockstep itself: %S"
                (cons program args)))
  (let ((specs (mapcar #'lockstep--spec-with-language
                       (lockstep--mode-specs mode))))
    (setq eglot-server-programs
          (cons (cons specs (lockstep--wrap-contact (cons program args)))
                (cl-remove-if (lambda (entry)
                                (and (lockstep--wrap-entry-p entry)
                                     (equal (lockstep--mode-specs (car entry))
                                            specs)))
                              eglot-server-programs)))
    specs))

;;;###autoload
(defun lockstep-wrap-all ()
  "Wrap every plain command entry of `eglot-server-programs' in lockstep.
An entry (MODES . (PROGRAM ARGS...)) of strings becomes lockstep in
front of that command, in place.  Functions (such as
`eglot-alternatives'), (CLASS . ARGS), host and port, :autoport,
:initializationOptions and entries already wrapped are left as
they are; use `lockstep-wrap' for those.  Returns the wrapped
entries' modes."
  (interactive)
  (let (wrapped)
    (setq eglot-server-programs
          (mapcar (lambda (entry)
                    (if (and (consp entry) (lockstep--plain-command-p (cdr entry)))
                        (progn (push (car entry) wrapped)
                               (cons (car entry)
                                     (lockstep--wrap-contact (cdr entry))))
                      entry))
                  eglot-server-programs))
    (when (called-interactively-p 'interactive)
      (message "[lockstep] Wrapped %d server%s of `eglot-server-programs'"
               (length wrapped) (if (= (length wrapped) 1) "" "s")))
    (nreverse wrapped)))

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
  "Run COMMAND with the one ARGUMENT object on SERVER; return its reply."
  (let ((arguments (vector argument)))
    (when (and (eq (eglot-current-server) server)
               (fboundp 'eglot--signal-textDocument/didChange))
      ;; Let the agent see the unsaved text of this buffer.
      (eglot--signal-textDocument/didChange))
    (if (fboundp 'eglot-execute)
        (prog1 (eglot-execute server (list :title command :command command
                                           :arguments arguments))
          (lockstep--read-rest server))
      (with-no-warnings
        (eglot-execute-command server command arguments)))))

(defun lockstep--execute (server command argument)
  "Run COMMAND with the one ARGUMENT object on SERVER; return its data."
  (lockstep--unwrap (lockstep--request server command argument)))

;;;; The chat buffer

(defvar lockstep-chat-mode-font-lock-keywords
  '(("^## .*$" . 'bold)
    ("^\\[\\(?:tool\\|status\\)\\]" . 'font-lock-comment-face)
    ("^\\[ok\\]" . 'success)
    ("^\\[\\(?:failed\\|error\\)\\]" . 'error)
    ("^\\[done\\]" . 'font-lock-keyword-face))
  "Highlighting of `lockstep-chat-mode'.")

(define-derived-mode lockstep-chat-mode special-mode "lockstep"
  "Major mode of the buffer where lockstep's answers stream."
  (setq-local font-lock-defaults '(lockstep-chat-mode-font-lock-keywords))
  (setq-local truncate-lines nil)
  (visual-line-mode 1))

(defvar lockstep--jobs (make-hash-table :test #'equal)
  "Job id -> plist (:streamed BOOL :finished BOOL).")

(defvar lockstep--current-job nil
  "The job whose output the chat buffer ends with.")

(defvar lockstep--line-open nil
  "Non-nil when the next text delta continues the last line.")

(defvar lockstep--last-job nil
  "(SERVER . JOB-ID) of the last job started or streamed.")

(defun lockstep--chat-buffer ()
  "The chat buffer, created on demand."
  (or (get-buffer lockstep-chat-buffer-name)
      (with-current-buffer (get-buffer-create lockstep-chat-buffer-name)
        (lockstep-chat-mode)
        (setq lockstep--current-job nil lockstep--line-open nil)
        (current-buffer))))

(defun lockstep--chat-write (text &optional continue)
  "Append TEXT to the chat; with CONTINUE, on the last line."
  (with-current-buffer (lockstep--chat-buffer)
    (let* ((inhibit-read-only t)
           (followers (cl-remove-if-not
                       (lambda (w) (= (window-point w) (point-max)))
                       (get-buffer-window-list (current-buffer) nil t))))
      (save-excursion
        (goto-char (point-max))
        (unless (or continue (bobp))
          (insert "\n"))
        (insert text))
      (dolist (window followers)
        (set-window-point window (point-max))))))

(defun lockstep--chat-line (text)
  "Append TEXT as a line of its own."
  (lockstep--chat-write text)
  (setq lockstep--line-open nil))

(defun lockstep--job (job-id)
  "The state plist of JOB-ID."
  (or (gethash job-id lockstep--jobs)
      (puthash job-id (list :streamed nil :finished nil) lockstep--jobs)))

(defun lockstep--enter-job (job-id)
  "Start the section of JOB-ID unless the chat already ends with it."
  (unless (equal lockstep--current-job job-id)
    (setq lockstep--current-job job-id)
    (lockstep--chat-line "")
    (lockstep--chat-line (format "## lockstep · %s" job-id))
    (display-buffer (lockstep--chat-buffer))))

(defun lockstep--first-line (message)
  "The first line of MESSAGE, with an ellipsis if there is more."
  (let ((message (format "%s" (or message ""))))
    (if (string-match "\n" message)
        (concat (substring message 0 (match-beginning 0)) " …")
      message)))

(defun lockstep--chat-prompt (prompt where)
  "Record PROMPT, about WHERE (a string or nil), in the chat."
  (setq lockstep--current-job nil)
  (unless (= (buffer-size (lockstep--chat-buffer)) 0)
    (lockstep--chat-line ""))
  (lockstep--chat-line (concat "## you" (and where (concat " · " where))))
  (lockstep--chat-line prompt)
  (display-buffer (lockstep--chat-buffer)))

(defun lockstep--follow-job (server job-id)
  "Stream JOB-ID of SERVER into the chat; it is the job to cancel."
  (setq lockstep--last-job (cons server job-id))
  (lockstep--job job-id)
  (lockstep--enter-job job-id))

(defun lockstep--reason (message data)
  "Why a job ended: MESSAGE, else the error in the job's DATA, else nil."
  (let ((error (plist-get data :error)))
    (cond ((and (stringp message) (not (string-empty-p message))) message)
          ((stringp error) error)
          ((consp error) (plist-get error :message)))))

(defun lockstep--chat-finish (job-id status data &optional message)
  "Render the end of JOB-ID from the done notification and `lockstep.job'.
STATUS and MESSAGE come from the notification, DATA from the job."
  (let ((job (lockstep--job job-id))
        (why (lockstep--reason message data)))
    (unless (plist-get job :finished)
      (puthash job-id (plist-put job :finished t) lockstep--jobs)
      (lockstep--enter-job job-id)
      (let ((text (plist-get data :text))
            (changed (append (plist-get data :files_changed) nil)))
        (when (and (stringp text) (not (string-empty-p text))
                   (not (plist-get job :streamed)))
          (lockstep--chat-line text))
        (lockstep--chat-line
         (concat (format "[done] %s" (or (plist-get data :status) status "done"))
                 (and why (concat ": " (lockstep--first-line why)))
                 (and changed (concat " · files changed: "
                                      (mapconcat #'identity changed ", ")))))))))

(defun lockstep--fetch-job (server job-id status message)
  "Ask SERVER for the final state of JOB-ID, then render it.
STATUS and MESSAGE are what the done notification said.
Asynchronous: this runs inside a notification handler."
  (jsonrpc-async-request
   server :workspace/executeCommand
   (list :command "lockstep.job" :arguments (vector (list :job_id job-id)))
   :success-fn (lambda (result)
                 (lockstep--chat-finish
                  job-id status
                  (and (eq (plist-get result :ok) t) (plist-get result :data))
                  message))
   :error-fn (lambda (_error) (lockstep--chat-finish job-id status nil message))
   :timeout-fn (lambda () (lockstep--chat-finish job-id status nil message))))

(defun lockstep--render-stream (server params)
  "Render the `lockstep/stream' PARAMS sent by SERVER."
  (let ((job-id (plist-get params :job_id))
        (kind (plist-get params :kind))
        (tool (or (plist-get params :tool) "?")))
    (when job-id
      (unless (equal (cdr lockstep--last-job) job-id)
        (setq lockstep--last-job (cons server job-id)))
      (lockstep--enter-job job-id)
      (pcase kind
        ("text"
         (let ((text (plist-get params :text)))
           ;; A paragraph after an event line starts on the next line, without
           ;; blank lines.
           (when (and (stringp text) (not lockstep--line-open))
             (setq text (replace-regexp-in-string "\\`\n+" "" text)))
           (when (and (stringp text) (not (string-empty-p text)))
             (lockstep--chat-write text lockstep--line-open)
             (setq lockstep--line-open t)
             (puthash job-id (plist-put (lockstep--job job-id) :streamed t)
                      lockstep--jobs))))
        ("tool_call"
         (lockstep--chat-line
          (string-trim-right
           (format "[tool] %s %s" tool (or (plist-get params :file_path) "")))))
        ("tool_result"
         (lockstep--chat-line
          (format "%s %s: %s"
                  (if (eq (plist-get params :ok) :json-false) "[failed]" "[ok]")
                  tool (lockstep--first-line (plist-get params :message)))))
        ("status"
         (lockstep--chat-line
          (format "[status] %s" (or (plist-get params :message)
                                    (plist-get params :status) ""))))
        ("done"
         (lockstep--fetch-job server job-id (plist-get params :status)
                              (plist-get params :message)))))))

(cl-defmethod eglot-handle-notification
  (server (_method (eql lockstep/stream)) &rest params)
  "Render a `lockstep/stream' notification from SERVER with PARAMS."
  (lockstep--render-stream server params))

;;;; Commands

(defun lockstep--lsp-position (pos)
  "LSP position (UTF-16 columns) of POS in the current buffer."
  (save-excursion
    (save-restriction
      (widen)
      (goto-char pos)
      (list :line (1- (line-number-at-pos pos t))
            :character (/ (length (encode-coding-region
                                   (line-beginning-position) pos 'utf-16le t))
                          2)))))

(defun lockstep--describe (file beg end)
  "FILE relative to its project, with the lines of BEG..END if given."
  (let* ((project (project-current nil (file-name-directory file)))
         (name (if project
                   (file-relative-name file (project-root project))
                 (file-name-nondirectory file))))
    (if beg
        (format "%s:%d-%d" name (line-number-at-pos beg t)
                ;; A region ending at a line start ends on the line before.
                (line-number-at-pos
                 (if (and (> end beg) (save-excursion (goto-char end) (bolp)))
                     (1- end)
                   end)
                 t))
      name)))

;;;###autoload
(defun lockstep-ask (prompt &optional beg end)
  "Ask the lockstep agent PROMPT about the current file.
With an active region (BEG and END from Lisp), point the agent at
it.  The answer streams into the `lockstep-chat-buffer-name'
buffer."
  (interactive
   (let ((region (use-region-p)))
     (list (read-string "lockstep> ")
           (and region (region-beginning))
           (and region (region-end)))))
  (when (string-empty-p (string-trim prompt))
    (user-error "[lockstep] Empty prompt"))
  (let* ((server (lockstep--server))
         (file (and buffer-file-name (expand-file-name buffer-file-name)))
         (argument (list :prompt prompt)))
    (when file
      (setq argument (append argument (list :file_path file)))
      (when beg
        (setq argument
              (append argument
                      (list :range (list :start (lockstep--lsp-position beg)
                                         :end (lockstep--lsp-position end)))))))
    (lockstep--chat-prompt prompt (and file (lockstep--describe file beg end)))
    (let ((data (condition-case err
                    (lockstep--execute server "lockstep.ask" argument)
                  (error (lockstep--chat-line
                          (format "[error] %s" (error-message-string err)))
                         (signal (car err) (cdr err))))))
      (lockstep--follow-job server (plist-get data :job_id)))))

(defun lockstep--report-blocks (data dry-run &optional failure)
  "Report the per-block statuses of apply_edit_blocks DATA.
DRY-RUN says the blocks were only checked; FAILURE is the error
text of a reply that failed as a whole."
  (let* ((blocks (append (plist-get data :blocks) nil))
         (counts nil)
         (lines (mapcar
                 (lambda (block)
                   (let ((status (format "%s" (plist-get block :status))))
                     (setf (alist-get status counts nil nil #'equal)
                           (1+ (alist-get status counts 0 nil #'equal)))
                     (format "%-14s %s  %s" status
                             (or (plist-get block :file_path) "?")
                             (lockstep--first-line (plist-get block :message)))))
                 blocks))
         (added (append (plist-get data :files_auto_added) nil))
         (changed (append (plist-get data :files_changed) nil)))
    (if (null blocks)
        (message "[lockstep] %s" (or failure "No edit blocks found"))
      (message "%s"
               (mapconcat
                #'identity
                (append
                 (list (format "[lockstep] %s%d edit block%s: %s"
                               (if dry-run "(dry run) " "")
                               (length blocks) (if (cdr blocks) "s" "")
                               (mapconcat (lambda (c) (format "%d %s" (cdr c) (car c)))
                                          (reverse counts) ", ")))
                 lines
                 (and added (list (concat "added to the session (resend those blocks): "
                                          (mapconcat #'identity added ", "))))
                 (and changed (list (concat "files changed: "
                                            (mapconcat #'identity changed ", "))))
                 (and failure (list failure)))
                "\n")))))

;;;###autoload
(defun lockstep-apply-edit-blocks (&optional dry-run beg end)
  "Apply the edit blocks in the buffer (or region BEG..END).
With a prefix argument DRY-RUN, only check them.  Each block's
status is reported in the echo area."
  (interactive
   (let ((region (use-region-p)))
     (list current-prefix-arg
           (and region (region-beginning))
           (and region (region-end)))))
  (let ((argument (list :text (buffer-substring-no-properties
                               (or beg (point-min)) (or end (point-max))))))
    (when dry-run
      (setq argument (append argument (list :dry_run t))))
    (let* ((reply (lockstep--request (lockstep--server)
                                     "lockstep.apply_edit_blocks" argument))
           (ok (and (consp reply) (eq (plist-get reply :ok) t)))
           (data (and (consp reply) (plist-get reply :data))))
      (if (or ok (plist-get data :blocks))
          (lockstep--report-blocks
           data dry-run
           (unless ok (lockstep--error-text (plist-get reply :error))))
        (lockstep--unwrap reply)))))

;;;###autoload
(defun lockstep-cancel ()
  "Cancel the last lockstep job."
  (interactive)
  (unless lockstep--last-job
    (user-error "[lockstep] No job to cancel"))
  (let ((server (car lockstep--last-job))
        (job-id (cdr lockstep--last-job)))
    (unless (jsonrpc-running-p server)
      (user-error "[lockstep] The server that ran %s is gone" job-id))
    (lockstep--execute server "lockstep.cancel" (list :job_id job-id))
    (message "[lockstep] cancelled %s" job-id)))

;;;###autoload
(defun lockstep-session ()
  "Show the lockstep session (model, context files, approvals)."
  (interactive)
  (let ((data (lockstep--execute (lockstep--server) "lockstep.session"
                                 (make-hash-table))))
    (with-current-buffer (get-buffer-create "*lockstep session*")
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert (if data (json-encode data) "{}"))
        (json-pretty-print-buffer)
        (goto-char (point-min))
        (special-mode))
      (display-buffer (current-buffer)))))

;;;###autoload
(defun lockstep-reset-session ()
  "Forget the lockstep session: history, context and approvals."
  (interactive)
  (lockstep--execute (lockstep--server) "lockstep.reset_session"
                     (make-hash-table))
  (message "[lockstep] session cleared"))

;;;###autoload
(defun lockstep-chat ()
  "Show the buffer where lockstep's answers stream."
  (interactive)
  (pop-to-buffer (lockstep--chat-buffer)))

;;;; Review and revert

;; With :approval "review" each change of the agent waits, hunk by hunk,
;; for a decision: Eglot shows each hunk as an information diagnostic
;; with code actions, and these commands do the same from the keyboard.
;; A hunk is a plist: :file (absolute), :file_path (as the server names
;; it), :change_id, :job_id, :tool, and the server's :hunk_id, :line,
;; :end_line (1-based) and :diff.

(defcustom lockstep-review-buffer-name "*lockstep review*"
  "Name of the buffer where `lockstep-review' lists proposed changes."
  :type 'string)

(defvar-local lockstep--review-server nil
  "The server whose proposed changes this review list shows.")

(defvar-local lockstep--review-file nil
  "The file this review list is limited to, or nil for all.")

(defun lockstep--visited-file ()
  "The absolute name of the current buffer's file; a `user-error' if none."
  (if buffer-file-name
      (expand-file-name buffer-file-name)
    (user-error "[lockstep] This buffer visits no file; M-x lockstep-review lists the proposed changes")))

(defun lockstep--list-server ()
  "The server of the review list when in one, else of the current buffer."
  (if (lockstep--server-p lockstep--review-server)
      lockstep--review-server
    (lockstep--server)))

(defun lockstep--pending-hunks (server &optional file)
  "The hunks waiting for review on SERVER, in FILE only when given."
  (let ((data (lockstep--execute server "lockstep.review"
                                 (if file (list :file_path file) (make-hash-table))))
        (root (project-root (eglot--project server))))
    (cl-loop for change in (append (plist-get data :pending) nil)
             nconc (cl-loop for hunk in (append (plist-get change :hunks) nil)
                            collect (append
                                     (list :file (expand-file-name
                                                  (plist-get change :file_path) root)
                                           :file_path (plist-get change :file_path)
                                           :change_id (plist-get change :change_id)
                                           :job_id (plist-get change :job_id)
                                           :tool (plist-get change :tool))
                                     hunk)))))

(defun lockstep--listed-hunk ()
  "The hunk of the review list at point, or nil."
  (get-text-property (point) 'lockstep-hunk))

(defun lockstep--hunk-at-point (server)
  "The pending hunk at point: in the review list, or in a file's buffer."
  (or (lockstep--listed-hunk)
      (let ((line (line-number-at-pos nil t))
            (file (lockstep--visited-file)))
        (or (cl-find-if (lambda (hunk)
                          (<= (plist-get hunk :line) line (plist-get hunk :end_line)))
                        (lockstep--pending-hunks server file))
            (user-error "[lockstep] No proposed change at line %d of %s; M-x lockstep-review lists them"
                        line (file-name-nondirectory file))))))

(defun lockstep--decide (decision whole-file)
  "Decide the hunk at point, or with WHOLE-FILE its file, as DECISION.
Reports each hunk's status and returns the decided hunks."
  (let* ((server (lockstep--list-server))
         (listed (lockstep--listed-hunk))
         (target (if whole-file
                     (list :file_path (if listed (plist-get listed :file)
                                        (lockstep--visited-file)))
                   (list :id (plist-get (lockstep--hunk-at-point server) :hunk_id))))
         (data (lockstep--execute server "lockstep.decide"
                                  (append target (list :decision decision))))
         (hunks (append (plist-get data :hunks) nil)))
    (lockstep--review-refresh)
    (message "[lockstep] %s"
             (mapconcat (lambda (hunk)
                          (concat (format "%s %s" (plist-get hunk :hunk_id)
                                          (plist-get hunk :status))
                                  (and (plist-get hunk :message)
                                       (concat ": " (lockstep--first-line
                                                     (plist-get hunk :message))))))
                        hunks "; "))
    hunks))

;;;###autoload
(defun lockstep-accept (&optional whole-file)
  "Accept the proposed change at point: that hunk lands in the buffer.
With a prefix argument WHOLE-FILE, every proposed change of the file.
Works in a file's buffer and in the `lockstep-review' list."
  (interactive "P")
  (lockstep--decide "apply" whole-file))

;;;###autoload
(defun lockstep-reject (&optional whole-file)
  "Reject the proposed change at point; the agent hears it was rejected.
With a prefix argument WHOLE-FILE, every proposed change of the file.
Works in a file's buffer and in the `lockstep-review' list."
  (interactive "P")
  (lockstep--decide "reject" whole-file))

(defun lockstep--diff-face (line)
  "The face of the diff LINE in the review list."
  (pcase (and (> (length line) 0) (aref line 0))
    (?@ 'diff-hunk-header)
    (?+ 'diff-added)
    (?- 'diff-removed)
    (_ 'diff-context)))

(defun lockstep--hunk-summary (hunk)
  "\"+A −R\" of HUNK's diff."
  (let ((lines (cdr (split-string (plist-get hunk :diff) "\n" t))))
    (format "+%d −%d"
            (cl-count-if (lambda (l) (string-prefix-p "+" l)) lines)
            (cl-count-if (lambda (l) (string-prefix-p "-" l)) lines))))

(defun lockstep--review-insert (hunk)
  "Insert HUNK in the review list: a file:line header, then its diff."
  (let ((start (point))
        (line (plist-get hunk :line))
        (end (plist-get hunk :end_line)))
    (insert (propertize (format "%s:%s:" (plist-get hunk :file_path)
                                (if (> end line) (format "%d-%d" line end) line))
                        'face 'diff-file-header)
            (format " %s %s %s%s\n" (plist-get hunk :hunk_id)
                    (lockstep--hunk-summary hunk) (plist-get hunk :tool)
                    (if (plist-get hunk :job_id)
                        (format " (%s)" (plist-get hunk :job_id))
                      "")))
    (put-text-property start (point) 'lockstep-review-header t)
    (dolist (text (split-string (plist-get hunk :diff) "\n" t))
      (insert "  " (propertize text 'face (lockstep--diff-face text)) "\n"))
    (put-text-property start (point) 'lockstep-hunk hunk)))

(defun lockstep--review-render ()
  "Fill the current review list from its server.
Point stays on the hunk it was on; if that hunk is gone, just
before what took its place, so `next-error' goes there next."
  (let* ((hunks (lockstep--pending-hunks lockstep--review-server
                                         lockstep--review-file))
         (was (plist-get (lockstep--listed-hunk) :hunk_id))
         (line (line-number-at-pos))
         (inhibit-read-only t))
    (erase-buffer)
    (insert (if hunks
                (format "%d proposed change%s %s for review%s.  RET visit, a accept, r reject (C-u: whole file), g refresh\n"
                        (length hunks) (if (cdr hunks) "s" "")
                        (if (cdr hunks) "wait" "waits")
                        (if lockstep--review-file
                            (concat " in " (file-name-nondirectory lockstep--review-file))
                          ""))
              "Nothing waits for review.\n"))
    (dolist (hunk hunks)
      (insert "\n")
      (lockstep--review-insert hunk))
    (goto-char (point-min))
    (forward-line (1- line))
    (unless (equal was (plist-get (lockstep--listed-hunk) :hunk_id))
      (forward-line -1))
    hunks))

(defun lockstep--review-refresh ()
  "Render the review list again, if there is one."
  (let ((list (get-buffer lockstep-review-buffer-name)))
    (when (buffer-live-p list)
      (with-current-buffer list
        (when (lockstep--server-p lockstep--review-server)
          (lockstep--review-render)
          (dolist (window (get-buffer-window-list list nil t))
            (set-window-point window (point))))))))

(defun lockstep--review-header (forward)
  "Start of the next (FORWARD) or previous hunk header, or nil."
  (save-excursion
    (if forward (forward-line 1) (beginning-of-line))
    (let ((match (if forward
                     (text-property-search-forward 'lockstep-review-header t t)
                   (text-property-search-backward 'lockstep-review-header t t))))
      (and match (prop-match-beginning match)))))

(defun lockstep-review-next (&optional n)
  "Move to the Nth next proposed change in the list (previous if N < 0)."
  (interactive "p")
  (let ((n (or n 1)))
    (dotimes (_ (abs n))
      (goto-char (or (lockstep--review-header (> n 0))
                     (user-error "[lockstep] No %s proposed change"
                                 (if (> n 0) "next" "previous")))))))

(defun lockstep-review-previous (&optional n)
  "Move to the Nth previous proposed change in the list."
  (interactive "p")
  (lockstep-review-next (- (or n 1))))

(defun lockstep-review-visit ()
  "Show the proposed change at point in its file, where it is now."
  (interactive)
  (let* ((hunk (or (lockstep--listed-hunk)
                   (user-error "[lockstep] No proposed change at point")))
         (now (cl-find (plist-get hunk :hunk_id)
                       (lockstep--pending-hunks lockstep--review-server
                                                (plist-get hunk :file))
                       :key (lambda (h) (plist-get h :hunk_id)) :test #'equal)))
    (unless now
      (user-error "[lockstep] %s was decided already; g refreshes the list"
                  (plist-get hunk :hunk_id)))
    (pop-to-buffer (find-file-noselect (plist-get hunk :file)))
    (widen)
    (goto-char (point-min))
    (forward-line (1- (plist-get now :line)))))

(defun lockstep--review-next-error (n &optional reset)
  "The `next-error-function' of the review list: visit the Nth next hunk."
  (when reset
    (goto-char (point-min)))
  (lockstep-review-next n)
  (lockstep-review-visit))

(defvar lockstep-review-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "RET") #'lockstep-review-visit)
    (define-key map "n" #'lockstep-review-next)
    (define-key map "p" #'lockstep-review-previous)
    (define-key map "a" #'lockstep-accept)
    (define-key map "r" #'lockstep-reject)
    map)
  "Keys of `lockstep-review-mode'.")

(define-derived-mode lockstep-review-mode special-mode "lockstep-review"
  "The changes proposed by lockstep that wait for a decision.
\\{lockstep-review-mode-map}"
  (setq-local revert-buffer-function
              (lambda (&rest _) (lockstep--review-render)))
  (setq-local next-error-function #'lockstep--review-next-error))

;;;###autoload
(defun lockstep-review (&optional this-file)
  "List the proposed changes that wait for review, one hunk each.
With a prefix argument THIS-FILE, only those of the current file.
RET shows a hunk in its file, `next-error' (\\[next-error]) walks
them, and `lockstep-accept' / `lockstep-reject' decide them, in
the list or in the file.  Returns the hunks."
  (interactive "P")
  (let ((server (lockstep--server))
        (file (and this-file (lockstep--visited-file))))
    (with-current-buffer (get-buffer-create lockstep-review-buffer-name)
      (lockstep-review-mode)
      (setq lockstep--review-server server
            lockstep--review-file file
            default-directory (file-name-as-directory
                               (project-root (eglot--project server))))
      (let ((hunks (lockstep--review-render)))
        (goto-char (point-min))
        (setq next-error-last-buffer (current-buffer))
        (if (null hunks)
            (message "[lockstep] Nothing waits for review")
          (display-buffer (current-buffer))
          (message "[lockstep] %d proposed change%s to review" (length hunks)
                   (if (cdr hunks) "s" "")))
        hunks))))

(defun lockstep--report-revert (data)
  "Report the per-file statuses of the revert DATA.
The messages go to a buffer when a file could not be reverted."
  (let ((files (append (plist-get data :files) nil)))
    (message "[lockstep] Revert of %s: %s" (plist-get data :job_id)
             (mapconcat (lambda (f) (format "%s %s" (plist-get f :file_path)
                                            (plist-get f :status)))
                        files ", "))
    (unless (cl-every (lambda (f) (equal (plist-get f :status) "reverted")) files)
      (with-current-buffer (get-buffer-create "*lockstep revert*")
        (let ((inhibit-read-only t))
          (erase-buffer)
          (dolist (f files)
            (insert (format "%s: %s\n%s\n\n" (plist-get f :file_path)
                            (plist-get f :status) (or (plist-get f :message) ""))))
          (goto-char (point-min))
          (special-mode))
        (display-buffer (current-buffer))))))

;;;###autoload
(defun lockstep-revert (&optional job-id)
  "Undo the changes of the last agent run, or of JOB-ID.
With a prefix argument, ask for the job.  Lines changed since are
left alone: such a file is reported as a conflict, with the part
that would be undone.  Returns the per-file statuses."
  (interactive
   (list (and current-prefix-arg
              (let ((last (cdr lockstep--last-job)))
                (read-string (if last (format "Revert job (default %s): " last)
                               "Revert job: ")
                             nil nil last)))))
  (let ((data (lockstep--execute
               (lockstep--server) "lockstep.revert"
               (if (and job-id (not (string-empty-p job-id)))
                   (list :job_id job-id)
                 (make-hash-table)))))
    (lockstep--review-refresh)
    (lockstep--report-revert data)
    (append (plist-get data :files) nil)))

(lockstep-register)

(provide 'lockstep)
;;; lockstep.el ends here

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
  :approval \"ask\"|\"auto\"   ask before the agent modifies a file
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

(defun lockstep--request (server command argument)
  "Run COMMAND with the one ARGUMENT object on SERVER; return its reply."
  (let ((arguments (vector argument)))
    (when (and (eq (eglot-current-server) server)
               (fboundp 'eglot--signal-textDocument/didChange))
      ;; Let the agent see the unsaved text of this buffer.
      (eglot--signal-textDocument/didChange))
    (if (fboundp 'eglot-execute)
        (eglot-execute server (list :title command :command command
                                    :arguments arguments))
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

(lockstep-register)

(provide 'lockstep)
;;; lockstep.el ends here

;;; lockstep-chat.el --- The lockstep chat buffer and agent commands -*- lexical-binding: t; -*-

;; Author: lockstep contributors
;; SPDX-License-Identifier: MIT

;; This file is not part of GNU Emacs.

;;; Commentary:

;; Part of the lockstep package: load lockstep.el, which loads this
;; file.  The chat buffer (`lockstep-chat-buffer-name') where the
;; agent's `lockstep/stream' notifications are rendered, job by job,
;; and the commands that talk to the agent: `lockstep-ask',
;; `lockstep-apply-edit-blocks', `lockstep-cancel',
;; `lockstep-reset-session' and `lockstep-chat' (`lockstep-session' is
;; in lockstep-session-view.el).
;;
;; The commands' autoloads name lockstep.el: they need the whole
;; package, and lockstep.el loads this file with the rest of it.

;;; Code:

(require 'cl-lib)
(require 'eglot)
(require 'jsonrpc)
(require 'json)
(require 'project)

;; Defined in lockstep.el, which loads this file (so no `require' here).
(defvar lockstep-chat-buffer-name)
(declare-function lockstep--server "lockstep" ())
(declare-function lockstep--request "lockstep" (server command argument))
(declare-function lockstep--execute "lockstep" (server command argument))
(declare-function lockstep--unwrap "lockstep" (result))
(declare-function lockstep--error-text "lockstep" (error))
(declare-function lockstep--first-line "lockstep" (message))

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
    (lockstep--show-chat)))

(defun lockstep--show-chat ()
  "Show the chat; a window that newly shows it starts at its end.
A window already showing it keeps its place: the user may have
scrolled up, and `lockstep--chat-write' follows only windows at
the end."
  (let* ((buffer (lockstep--chat-buffer))
         (before (get-buffer-window-list buffer nil t))
         (window (display-buffer buffer)))
    (when (and window (not (memq window before)))
      (set-window-point window (with-current-buffer buffer (point-max))))))

(defun lockstep--chat-prompt (prompt where)
  "Record PROMPT, about WHERE (a string or nil), in the chat."
  (setq lockstep--current-job nil)
  (unless (= (buffer-size (lockstep--chat-buffer)) 0)
    (lockstep--chat-line ""))
  (lockstep--chat-line (concat "## you" (and where (concat " · " where))))
  (lockstep--chat-line prompt)
  (lockstep--show-chat))

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
        ("output" (lockstep-command-output (plist-get params :text)))
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

;;;###autoload (autoload 'lockstep-ask "lockstep" nil t)
(defun lockstep-ask (prompt &optional beg end)
  "Ask the lockstep agent PROMPT about the current file.
With an active region (BEG and END from Lisp), point the agent at
it.  The answer streams into the `lockstep-chat-buffer-name'
buffer."
  (interactive
   (let ((region (use-region-p)))
     ;; No server: said before the prompt is typed, not after.
     (lockstep--server)
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

;;;###autoload (autoload 'lockstep-apply-edit-blocks "lockstep" nil t)
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

;;;###autoload (autoload 'lockstep-cancel "lockstep" nil t)
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

;;;###autoload (autoload 'lockstep-reset-session "lockstep" nil t)
(defun lockstep-reset-session ()
  "Forget the lockstep session: history, context and approvals."
  (interactive)
  (lockstep--execute (lockstep--server) "lockstep.reset_session"
                     (make-hash-table))
  (message "[lockstep] session cleared"))

;;;###autoload (autoload 'lockstep-trust "lockstep" nil t)
(defun lockstep-trust ()
  "Trust the project's folder: its .lockstep.json then applies in full.
Until then it may set only `model', `tools', `patchTool',
`diagnosticsWaitMs', lower turn limits and stricter safety keys;
`replay', `transcript' and `sessionsDir' never come from it.  The
trust is kept in lockstep's state directory, never in the project."
  (interactive)
  (let ((data (lockstep--execute (lockstep--server) "lockstep.trust"
                                 (make-hash-table))))
    (message "[lockstep] %s" (or (plist-get data :message) "folder trusted"))))

;;;###autoload (autoload 'lockstep-chat "lockstep" nil t)
(defun lockstep-chat ()
  "Show the buffer where lockstep's answers stream."
  (interactive)
  (pop-to-buffer (lockstep--chat-buffer)))

(provide 'lockstep-chat)
;;; lockstep-chat.el ends here

;;; lockstep-session-view.el --- The lockstep session, formatted -*- lexical-binding: t; -*-

;; Author: lockstep contributors
;; SPDX-License-Identifier: MIT

;; This file is not part of GNU Emacs.

;;; Commentary:

;; Part of the lockstep package: load lockstep.el, which loads this
;; file.  `lockstep-session' shows what `lockstep.session' answers (the
;; model, approval, context, usage, companion, the wrapped server), the
;; last job started here and what waits for review, one fact a line,
;; in `lockstep-session-buffer-name'.  A wrapped server that failed says so in the error face, with the
;; reason and the features that are missing without it.
;;
;; The command's autoload names lockstep.el: it needs the whole
;; package, and lockstep.el loads this file with the rest of it.

;;; Code:

(require 'cl-lib)
(require 'subr-x)

;; Defined in lockstep.el, which loads this file (so no `require' here).
(declare-function lockstep--server "lockstep" ())
(declare-function lockstep--execute "lockstep" (server command argument))

;; Defined in lockstep-chat.el: the last job started or streamed.
(defvar lockstep--last-job)

(defcustom lockstep-session-buffer-name "*lockstep session*"
  "Name of the buffer where `lockstep-session' shows the session."
  :type 'string
  :group 'lockstep)

(defun lockstep--session-plural (n word)
  "N and WORD, in the plural unless N is 1."
  (format "%d %s%s" n word (if (eql n 1) "" "s")))

(defun lockstep--session-join (items)
  "ITEMS (a vector or list) joined with commas, or \"none\"."
  (let ((items (append items nil)))
    (if items (mapconcat (lambda (i) (format "%s" i)) items ", ") "none")))

(defun lockstep--session-wrapped (wrapped)
  "The WRAPPED server of a session answer as (LEVEL TEXT MISSING).
LEVEL is `ok' (running), `warning' (restarting) or `error' (failed,
or stopped on an older server); TEXT says so with the reason and the
restarts; MISSING lists the features gone without it.  nil when
nothing is wrapped."
  (when wrapped
    (let* ((state (or (plist-get wrapped :state) "unknown"))
           (reason (plist-get wrapped :reason))
           (restarts (or (plist-get wrapped :restarts) 0)))
      (list (pcase state ("running" 'ok) ("restarting" 'warning) (_ 'error))
            (concat (format "%s: %s" (plist-get wrapped :server) state)
                    (and reason (format " (%s)" reason))
                    (and (> restarts 0)
                         (concat ", " (lockstep--session-plural restarts "restart"))))
            (mapcar (lambda (f) (format "%s" f)) (append (plist-get wrapped :missing) nil))))))

(defun lockstep--session-model (data)
  "The provider, model, endpoint and key line of session DATA."
  (let ((base (plist-get data :baseUrl)))
    (concat (format "%s %s" (plist-get data :provider)
                    (or (plist-get data :model) "(no model set)"))
            (and base (concat " at " base))
            (cond ((eq (plist-get data :key_found) t) " · API key found")
                  (base " · no API key (a local endpoint needs none)")
                  (t (concat " · no API key found (a local model needs none: "
                             "\"provider\": \"ollama\" in .lockstep.json)"))))))

(defun lockstep--session-review (pending)
  "What waits for review, from the PENDING changes of `lockstep.review'."
  (let* ((changes (append pending nil))
         (hunks (apply #'+ (mapcar (lambda (c) (length (plist-get c :hunks))) changes)))
         (files (sort (delete-dups (mapcar (lambda (c) (plist-get c :file_path)) changes))
                      #'string<)))
    (if (zerop hunks)
        "nothing waits"
      (format "%s in %s wait%s: %s (M-x lockstep-review)"
              (lockstep--session-plural hunks "hunk")
              (lockstep--session-plural (length files) "file")
              (if (= hunks 1) "s" "")
              (string-join files ", ")))))

(defun lockstep--session-companion (companion)
  "The COMPANION line of a session answer."
  (cond ((null companion) "off")
        ((eq (plist-get companion :enabled) :json-false)
         (concat "off" (let ((r (plist-get companion :reason))) (and r (format " (%s)" r)))))
        (t (let ((diffs (length (plist-get companion :pending_diffs))))
             (format "port %s, %s, %s" (plist-get companion :port)
                     (lockstep--session-plural (or (plist-get companion :agents) 0) "agent")
                     (if (zerop diffs) "no pending diff"
                       (lockstep--session-plural diffs "pending diff")))))))

(defun lockstep--session-job (job)
  "The line of JOB, `lockstep.job''s data of the last job, or nil."
  (if (null job)
      "none started here"
    (let ((files (append (plist-get job :files_changed) nil)))
      (concat (format "%s %s" (plist-get job :job_id) (or (plist-get job :status) "?"))
              (and files (concat ", changed " (lockstep--session-join files)))))))

(defun lockstep--session-mcp (server)
  "One MCP SERVER of the session as text: its state, tools or why it failed."
  (let ((status (or (plist-get server :status) "?"))
        (name (plist-get server :name)))
    (pcase status
      ("connected" (format "%s: connected, %s" name
                           (lockstep--session-plural (length (plist-get server :tools)) "tool")))
      ("not started" (format "%s: starts with the first request" name))
      (_ (concat (format "%s: %s" name status)
                 (and (plist-get server :error) (format " (%s)" (plist-get server :error)))
                 (and (plist-get server :stderr)
                      (format "; last stderr: %s" (plist-get server :stderr))))))))

(defun lockstep--session-lines (data pending &optional job)
  "The session view, as lines.
DATA is what `lockstep.session' answers, PENDING `lockstep.review''s
changes, JOB `lockstep.job''s data of the last job (or nil)."
  (let* ((usage (plist-get data :usage))
         (wrapped (lockstep--session-wrapped (plist-get data :wrapped)))
         (row (lambda (label text) (format "%-13s%s" label text))))
    (append
     (list (format "lockstep %s session" (or (plist-get data :version) ""))
           ""
           (funcall row "model" (lockstep--session-model data)))
     ;; Provider, baseUrl and model set in different places: said, never shown as fine.
     (and (stringp (plist-get data :model_warning))
          (list (funcall row "" (concat "WARNING: " (plist-get data :model_warning)))))
     (list (funcall row "approval" (or (plist-get data :approval) "?")))
     ;; run_command: how commands are approved, the sandbox they get or why none.
     (let ((commands (plist-get data :commands)))
       (and commands
            (list (funcall row "commands" (or (plist-get commands :summary) "?"))
                  (funcall row "sandbox" (or (plist-get commands :sandbox) "?")))))
     (list (funcall row "last job" (lockstep--session-job job))
           (funcall row "review" (lockstep--session-review pending))
           (funcall row "context" (lockstep--session-join (plist-get data :files_in_context)))
           (funcall row "always allow" (lockstep--session-join (plist-get data :always_allowed)))
           (funcall row "history" (lockstep--session-plural
                                   (or (plist-get data :history_messages) 0) "message"))
           (funcall row "usage" (format "%d tokens in, %d out"
                                        (or (plist-get usage :input_tokens) 0)
                                        (or (plist-get usage :output_tokens) 0)))
           (funcall row "instructions" (or (plist-get data :project_instructions) "none"))
           (funcall row "companion" (lockstep--session-companion (plist-get data :companion))))
     (let ((companion (plist-get data :companion)))
       (append
        (and (plist-get companion :discovery_file)
             (list (funcall row "" (concat "discovery file "
                                           (plist-get companion :discovery_file)))))
        (and (plist-get companion :environment)
             (list (funcall row "" (concat "in a terminal: "
                                           (plist-get companion :environment)))))))
     (let ((lines (append (mapcar #'lockstep--session-mcp (plist-get data :mcp_servers))
                          (append (plist-get data :mcp_problems) nil))))
       (let ((first t))
         (mapcar (lambda (text)
                   (prog1 (funcall row (if first "mcp servers" "") text) (setq first nil)))
                 lines)))
     (if (null wrapped)
         (list (funcall row "wrapped" "nothing (lockstep runs alone)"))
       (pcase-let ((`(,level ,text ,missing) wrapped))
         (append
          (list (funcall row "wrapped"
                         (propertize text 'face (pcase level
                                                  ('ok 'success)
                                                  ('warning 'warning)
                                                  (_ 'error)))))
          (and missing (list (funcall row "" (concat "missing: " (string-join missing ", ")))))
          (and (eq level 'error)
               (list (funcall row "" "lockstep's own commands and agent keep working without it")))))))))

;;;###autoload (autoload 'lockstep-session "lockstep" nil t)
(defun lockstep-session ()
  "Show the lockstep session, one fact a line.
The model, approval, the last job, what waits for review, context,
usage, the companion and the wrapped server.  Returns the lines."
  (interactive)
  (let* ((server (lockstep--server))
         (data (lockstep--execute server "lockstep.session" (make-hash-table)))
         (pending (plist-get (lockstep--execute server "lockstep.review" (make-hash-table))
                             :pending))
         (job (and lockstep--last-job (eq (car lockstep--last-job) server)
                   (ignore-errors
                     (lockstep--execute server "lockstep.job"
                                        (list :job_id (cdr lockstep--last-job))))))
         (lines (lockstep--session-lines data pending job)))
    (with-current-buffer (get-buffer-create lockstep-session-buffer-name)
      (let ((inhibit-read-only t))
        (erase-buffer)
        (insert (string-join lines "\n") "\n")
        (goto-char (point-min))
        (special-mode))
      (display-buffer (current-buffer)))
    lines))

(provide 'lockstep-session-view)
;;; lockstep-session-view.el ends here

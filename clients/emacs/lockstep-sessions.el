;;; lockstep-sessions.el --- Resume the lockstep agent's stored sessions -*- lexical-binding: t; -*-

;; Author: lockstep contributors
;; SPDX-License-Identifier: MIT

;; This file is not part of GNU Emacs.

;;; Commentary:

;; Part of the lockstep package: load lockstep.el, which loads this
;; file.  The server keeps each conversation on disk, per project.
;; `lockstep-sessions' lists them, newest first, in a tabulated list
;; where RET resumes the session on the line; `lockstep-resume' resumes
;; one by id (reading it with completion).  Once resumed, the next
;; `lockstep-ask' continues that conversation and `lockstep-revert'
;; undoes its runs.

;;; Code:

(require 'cl-lib)
(require 'tabulated-list)

;; Defined in lockstep.el, which loads this file (so no `require' here).
(declare-function lockstep--server "lockstep" ())
(declare-function lockstep--server-p "lockstep" (server))
(declare-function lockstep--execute "lockstep" (server command argument))

(defcustom lockstep-sessions-buffer-name "*lockstep sessions*"
  "Name of the buffer where `lockstep-sessions' lists stored sessions."
  :type 'string
  :group 'lockstep)

(defvar-local lockstep--sessions-server nil
  "The server whose stored sessions this list shows.")

(defun lockstep--sessions (server)
  "The stored sessions of SERVER's project, newest first (plists)."
  (append (plist-get (lockstep--execute server "lockstep.sessions" (make-hash-table))
                     :sessions)
          nil))

(defun lockstep--session-row (session)
  "A tabulated-list entry for SESSION."
  (let ((usage (plist-get session :usage))
        (updated (or (plist-get session :updated) "")))
    (list (plist-get session :id)
          (vector (replace-regexp-in-string "T" " " (substring updated 0 (min 16 (length updated))))
                  (number-to-string (or (plist-get session :turns) 0))
                  (number-to-string (length (plist-get session :files_changed)))
                  (number-to-string (+ (or (plist-get usage :input_tokens) 0)
                                       (or (plist-get usage :output_tokens) 0)))
                  (or (plist-get session :title) "")))))

(defvar lockstep-sessions-mode-map
  (let ((map (make-sparse-keymap)))
    (define-key map (kbd "RET") #'lockstep-sessions-resume-at-point)
    map)
  "Keys of the `lockstep-sessions' list.")

(define-derived-mode lockstep-sessions-mode tabulated-list-mode "lockstep-sessions"
  "The stored lockstep sessions of a project; RET resumes one."
  (setq tabulated-list-format [("Updated" 16 t) ("Turns" 5 t :right-align t)
                               ("Files" 5 t :right-align t) ("Tokens" 8 t :right-align t)
                               ("Title" 0 t)])
  (setq tabulated-list-padding 1)
  (tabulated-list-init-header))

;;;###autoload (autoload 'lockstep-sessions "lockstep" nil t)
(defun lockstep-sessions ()
  "List the project's stored lockstep sessions; RET on one resumes it."
  (interactive)
  (let* ((server (lockstep--server))
         (sessions (lockstep--sessions server)))
    (with-current-buffer (get-buffer-create lockstep-sessions-buffer-name)
      (lockstep-sessions-mode)
      (setq lockstep--sessions-server server)
      (setq tabulated-list-entries (mapcar #'lockstep--session-row sessions))
      (tabulated-list-print)
      (goto-char (point-min))
      (pop-to-buffer (current-buffer)))
    (unless sessions (message "[lockstep] No stored session for this project"))
    sessions))

(defun lockstep-sessions-resume-at-point ()
  "Resume the session on this line of the `lockstep-sessions' list."
  (interactive)
  (let ((id (tabulated-list-get-id)))
    (unless id (user-error "[lockstep] No session on this line"))
    (lockstep-resume id lockstep--sessions-server)))

;;;###autoload (autoload 'lockstep-resume "lockstep" nil t)
(defun lockstep-resume (session-id &optional server)
  "Resume the stored session SESSION-ID on SERVER (the current buffer's).
The next `lockstep-ask' continues it; files that changed since are
shown to the model as they are now.  Returns the server's reply data."
  (interactive
   (let* ((sessions (lockstep--sessions (lockstep--server)))
          (choices (mapcar (lambda (s) (cons (format "%s  %s" (plist-get s :id) (plist-get s :title))
                                             (plist-get s :id)))
                           sessions)))
     (unless choices (user-error "[lockstep] No stored session for this project"))
     (list (cdr (assoc (completing-read "Resume session: " choices nil t) choices)))))
  (let* ((server (if (lockstep--server-p server) server (lockstep--server)))
         (data (lockstep--execute server "lockstep.resume" (list :session_id session-id))))
    (message "[lockstep] %s" (plist-get data :message))
    data))

(provide 'lockstep-sessions)
;;; lockstep-sessions.el ends here

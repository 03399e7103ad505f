;;; lockstep-revert.el --- Undo a run of the lockstep agent -*- lexical-binding: t; -*-

;; Author: lockstep contributors
;; SPDX-License-Identifier: MIT

;; This file is not part of GNU Emacs.

;;; Commentary:

;; Part of the lockstep package: load lockstep.el, which loads this
;; file after lockstep-review.el.  `lockstep-revert' undoes the last
;; run, or a job named, and reports each file's status; the review list,
;; if shown, is refreshed.  Its autoload names lockstep.el, which loads
;; the whole package.

;;; Code:

(require 'cl-lib)
(require 'subr-x)

;; Defined in lockstep.el and lockstep-review.el, which load first.
(declare-function lockstep--server "lockstep" ())
(declare-function lockstep--execute "lockstep" (server command argument))
(declare-function lockstep--review-refresh "lockstep-review" ())
(declare-function eglot--project "eglot")
(declare-function eglot--managed-buffers "eglot")
(declare-function eglot--path-to-uri "eglot")
(declare-function jsonrpc-notify "jsonrpc")
(declare-function project-root "project")

;; Defined in lockstep-chat.el: the last job started or streamed, the
;; one `lockstep-revert' offers.
(defvar lockstep--last-job)

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

(defun lockstep--show-unsaved (server)
  "Open to SERVER the modified buffers of its project it does not manage.
An accepted change lands in a buffer of a mode lockstep does not
manage and is left unsaved: the server would judge the revert
against the disk and find the lines changed.  Returns the buffers
opened, for `lockstep--unshow'."
  (let ((root (expand-file-name (project-root (eglot--project server))))
        (managed (eglot--managed-buffers server))
        opened)
    (dolist (buffer (buffer-list))
      (with-current-buffer buffer
        (when (and buffer-file-name (buffer-modified-p)
                   (not (memq buffer managed))
                   (file-in-directory-p buffer-file-name root))
          ;; Eglot applies the revert's edit to this buffer when the
          ;; version matches its (unmanaged, so unchanging) counter.
          (jsonrpc-notify
           server :textDocument/didOpen
           (list :textDocument
                 (list :uri (eglot--path-to-uri buffer-file-name)
                       :languageId "plaintext"
                       :version (or (bound-and-true-p eglot--versioned-identifier) 0)
                       :text (save-restriction (widen) (buffer-string)))))
          (push buffer opened))))
    opened))

(defun lockstep--unshow (server buffers)
  "Close to SERVER the BUFFERS `lockstep--show-unsaved' opened."
  (dolist (buffer buffers)
    (when (buffer-live-p buffer)
      (with-current-buffer buffer
        (jsonrpc-notify server :textDocument/didClose
                        (list :textDocument
                              (list :uri (eglot--path-to-uri buffer-file-name))))))))

;;;###autoload (autoload 'lockstep-revert "lockstep" nil t)
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
  (let* ((server (lockstep--server))
         (shown (lockstep--show-unsaved server))
         (data (unwind-protect
                   (lockstep--execute
                    server "lockstep.revert"
                    (if (and job-id (not (string-empty-p job-id)))
                        (list :job_id job-id)
                      (make-hash-table)))
                 (lockstep--unshow server shown))))
    (lockstep--review-refresh)
    (lockstep--report-revert data)
    (append (plist-get data :files) nil)))

(provide 'lockstep-revert)
;;; lockstep-revert.el ends here

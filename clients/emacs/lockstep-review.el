;;; lockstep-review.el --- Review the lockstep agent's changes -*- lexical-binding: t; -*-

;; Author: lockstep contributors
;; SPDX-License-Identifier: MIT

;; This file is not part of GNU Emacs.

;;; Commentary:

;; Part of the lockstep package: load lockstep.el, which loads this
;; file.  `lockstep-review' lists the changes that wait for a decision,
;; and `lockstep-accept' and `lockstep-reject' decide them
;; (`lockstep-revert', in lockstep-revert.el, undoes a run).
;;
;; With :approval "review" each change of the agent waits, hunk by hunk,
;; for a decision: Eglot shows each hunk as an information diagnostic
;; with code actions, and these commands do the same from the keyboard.
;; A hunk is a plist: :file (absolute), :file_path (as the server names
;; it), :change_id, :job_id, :tool, and the server's :hunk_id, :line,
;; :end_line (1-based) and :diff.
;;
;; The commands' autoloads name lockstep.el: they need the whole
;; package, and lockstep.el loads this file with the rest of it.

;;; Code:

(require 'cl-lib)
(require 'eglot)
(require 'project)
(require 'diff-mode)
(require 'text-property-search)

;; Defined in lockstep.el, which loads this file (so no `require' here).
(declare-function lockstep--server "lockstep" ())
(declare-function lockstep--server-p "lockstep" (server))
(declare-function lockstep--execute "lockstep" (server command argument))
(declare-function lockstep--first-line "lockstep" (message))

(defcustom lockstep-review-buffer-name "*lockstep review*"
  "Name of the buffer where `lockstep-review' lists proposed changes."
  :type 'string
  :group 'lockstep)

(defvar-local lockstep--review-server nil
  "The server whose proposed changes this review list shows.")

(defvar-local lockstep--review-file nil
  "The file this review list is limited to, or nil for all.")

(defvar lockstep--preview nil
  "The overlay that previews a hunk's diff in its file, or nil.")

(defvar-local lockstep--previewed nil
  "The id of the hunk this review list previews.")

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

;;;###autoload (autoload 'lockstep-accept "lockstep" nil t)
(defun lockstep-accept (&optional whole-file)
  "Accept the proposed change at point: that hunk lands in the buffer.
With a prefix argument WHOLE-FILE, every proposed change of the file.
Works in a file's buffer and in the `lockstep-review' list."
  (interactive "P")
  (lockstep--decide "apply" whole-file))

;;;###autoload (autoload 'lockstep-reject "lockstep" nil t)
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
  "\"+A −R: first proposed line\" of HUNK, as the server sums it up.
Counted from its diff when the server sends no :summary."
  (or (plist-get hunk :summary)
      (let ((lines (cdr (split-string (plist-get hunk :diff) "\n" t))))
        (format "+%d −%d"
                (cl-count-if (lambda (l) (string-prefix-p "+" l)) lines)
                (cl-count-if (lambda (l) (string-prefix-p "-" l)) lines)))))

(defun lockstep--review-insert (hunk)
  "Insert HUNK in the review list: a file:line header, then its diff."
  (let ((start (point))
        (line (plist-get hunk :line))
        (end (plist-get hunk :end_line)))
    (insert (propertize (format "%s:%s:" (plist-get hunk :file_path)
                                (if (> end line) (format "%d-%d" line end) line))
                        'face 'diff-file-header)
            (format " %s %s %s%s\n" (plist-get hunk :hunk_id)
                    (plist-get hunk :tool) (lockstep--hunk-summary hunk)
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
    (lockstep--preview-clear)
    (setq lockstep--previewed nil)
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

;;;; Following point: the hunk at point previewed in its file

(defcustom lockstep-review-follow t
  "Whether the review list previews the hunk at point in its file.
Moving onto a hunk shows its file in another window at the hunk's
lines, with the lines it removes and adds under them in the diff
faces, until point leaves the hunk or it is decided."
  :type 'boolean
  :group 'lockstep)

(defun lockstep--preview-clear ()
  "Remove the preview of a hunk, if one is shown."
  (when (overlayp lockstep--preview)
    (delete-overlay lockstep--preview))
  (setq lockstep--preview nil))

(defun lockstep--preview-text (hunk)
  "HUNK's removed and added lines, in the diff faces, one a line."
  (mapconcat (lambda (line) (concat (propertize line 'face (lockstep--diff-face line)) "\n"))
             (cl-remove-if-not (lambda (line) (string-match-p "\\`[-+]" line))
                               (cdr (split-string (plist-get hunk :diff) "\n" t)))
             ""))

(defun lockstep-review-preview (hunk)
  "Show HUNK's file in another window at HUNK, its diff under its lines.
Returns the preview's overlay, or nil for a file not there yet."
  (lockstep--preview-clear)
  (let ((file (plist-get hunk :file)))
    (when (or (get-file-buffer file) (file-exists-p file))
      (let* ((buffer (find-file-noselect file))
             (window (display-buffer buffer '(nil (inhibit-same-window . t)))))
        (with-current-buffer buffer
          (save-restriction
            (widen)
            (save-excursion
              (goto-char (point-min))
              (forward-line (1- (plist-get hunk :line)))
              (when window (set-window-point window (point)))
              (forward-line (1+ (- (plist-get hunk :end_line) (plist-get hunk :line))))
              (let ((text (lockstep--preview-text hunk)))
                (setq lockstep--preview (make-overlay (point) (point)))
                (overlay-put lockstep--preview 'lockstep-preview (plist-get hunk :hunk_id))
                (overlay-put lockstep--preview 'before-string
                             (if (bolp) text (concat "\n" text)))
                lockstep--preview))))))))

(defun lockstep--review-follow ()
  "Preview the hunk at point in the review list, when it changed."
  (let ((hunk (and lockstep-review-follow (lockstep--listed-hunk))))
    (unless (equal (plist-get hunk :hunk_id) lockstep--previewed)
      (setq lockstep--previewed (plist-get hunk :hunk_id))
      (if hunk (lockstep-review-preview hunk) (lockstep--preview-clear)))))

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
  (setq-local next-error-function #'lockstep--review-next-error)
  (add-hook 'post-command-hook #'lockstep--review-follow nil t)
  (add-hook 'kill-buffer-hook #'lockstep--preview-clear nil t))

;;;###autoload (autoload 'lockstep-review "lockstep" nil t)
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
          ;; Selected: its keys (a, r, RET) are where the user types next.
          (pop-to-buffer (current-buffer))
          (message "[lockstep] %d proposed change%s to review" (length hunks)
                   (if (cdr hunks) "s" "")))
        hunks))))

(provide 'lockstep-review)
;;; lockstep-review.el ends here

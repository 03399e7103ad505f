;;; lockstep-approval.el --- The approval question with the change in it -*- lexical-binding: t; -*-

;; Part of lockstep (loaded by lockstep.el).  The server asks lockstep's
;; own clients with the `lockstep/approve' request, which carries each
;; file's diff: it is shown in a diff buffer beside the question, and
;; the question takes apply, always, reject, reject with a reason (the
;; model reads it) and stop (the run ends at once).  Quitting the
;; question (C-g) leaves the change staged for review.
;;
;; Eglot asks its own "Server wants to edit ... Proceed?" before every
;; edit a server sends (`eglot-confirm-server-initiated-edits'); the
;; edits lockstep sends were decided by the user already (here, in a
;; review, or by a revert), so for lockstep's servers that second
;; question is answered here, except with `approval' auto, where
;; Eglot's question is the only one the user gets.

;;; Code:

(require 'cl-lib)
(require 'eglot)
(require 'diff-mode)

(declare-function lockstep-approval-details "lockstep-approval-details" (question))

(defvar lockstep-approval-diff-buffer-name "*lockstep-diff*"
  "Name of the buffer that shows the change an approval question is about.")

(defun lockstep-approval--insert-file (file)
  "Insert FILE's diff (a plist of the question's files) with a header line."
  (let* ((path (plist-get file :file_path))
         (op (plist-get file :op))
         (from (plist-get file :moved_from))
         (head (cond ((and (equal op "move") (stringp from)) (format "%s -> %s" from path))
                     ((equal op "add") (format "new file %s" path))
                     ((equal op "delete") (format "delete %s" path))
                     (t path))))
    (insert (propertize (format "%s (+%s -%s)\n" head (plist-get file :added)
                                (plist-get file :removed))
                        'face 'bold))
    (insert (or (plist-get file :diff) ""))
    (unless (bolp) (insert "\n"))))

(defun lockstep-approval--display (insert mode)
  "Fill the question's buffer with INSERT, in MODE, beside the selected window.
Return the window."
  (let ((buffer (get-buffer-create lockstep-approval-diff-buffer-name)))
    (with-current-buffer buffer
      (let ((inhibit-read-only t))
        (erase-buffer)
        (funcall insert)
        (funcall mode)
        (setq buffer-read-only t)
        (goto-char (point-min))))
    (display-buffer buffer '((display-buffer-reuse-window display-buffer-pop-up-window)
                             (inhibit-same-window . t)))))

(defun lockstep-approval--show (files)
  "Show FILES' diffs in a buffer beside the selected window; return the window."
  (lockstep-approval--display (lambda () (mapc #'lockstep-approval--insert-file files))
                              #'diff-mode))

(defun lockstep-approval--choices (tool)
  "The answers the question about TOOL's change takes, as shown and as sent."
  `(("Apply" . "apply")
    (,(format "Always allow %s this session" tool) . "always")
    ("Reject" . "reject")
    ("Reject and say why" . reason)
    ("Stop the run" . "stop")))

(defun lockstep-approval--choose (window prompt choices)
  "Ask PROMPT with CHOICES ((TITLE . DECISION) ...), WINDOW showing the details.
Return the answer plist for the server, or nil; WINDOW goes afterwards."
  (unwind-protect
      (let* ((picked (completing-read (concat prompt " ") (mapcar #'car choices) nil t))
             (decision (cdr (assoc picked choices))))
        (cond ((eq decision 'reason)
               (let ((reason (read-string "Why not (the model reads this): ")))
                 (if (string-empty-p (string-trim reason))
                     (list :decision "reject")
                   (list :decision "reject" :reason reason))))
              (decision (list :decision decision))
              (t nil)))
    (when (and (window-live-p window)
               (not (eq window (selected-window)))
               (window-parent window))
      (delete-window window))))

(defun lockstep-approval-ask (message tool files)
  "Ask about TOOL's change described by MESSAGE, its diffs FILES shown beside.
Return the answer plist for the server.  In the minibuffer,
\\[scroll-other-window] scrolls the diff."
  (lockstep-approval--choose (lockstep-approval--show files) message
                             (lockstep-approval--choices tool)))

(cl-defmethod eglot-handle-request
  ((_server lockstep-server) (_method (eql lockstep/approve))
   &rest question &key kind message tool files &allow-other-keys)
  "Answer the approval QUESTION: a change (MESSAGE about TOOL, FILES' diffs
beside it), a command or an MCP call (`lockstep-approval-details')."
  (if (member kind '("command" "call"))
      (lockstep-approval-details question)
    (lockstep-approval-ask (or message "lockstep wants to change files.")
                           (or tool "this tool") (append files nil))))

(defconst lockstep-approval--decided-label "lockstep: decided by the user"
  "The label of an edit the user decided already (the server sets it).")

(cl-defmethod eglot-handle-request :around
  ((_server lockstep-server) (_method (eql workspace/applyEdit)) &rest args)
  "Apply an edit the user decided without Eglot's second question.
ARGS hold the edit's label: with approval auto the server sends
another, and Eglot's own question, the user's only one, stays."
  (let ((eglot-confirm-server-initiated-edits
         (and (not (equal (plist-get args :label) lockstep-approval--decided-label))
              eglot-confirm-server-initiated-edits)))
    (cl-call-next-method)))

;;; lockstep-approval.el ends here

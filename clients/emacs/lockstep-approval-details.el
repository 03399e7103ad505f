;;; lockstep-approval-details.el --- A command's and an MCP call's approval question -*- lexical-binding: t; -*-

;; Part of lockstep (loaded by lockstep.el).  The `lockstep/approve'
;; request also asks about a command the model wants to run (kind
;; "command": the whole line, where it runs, whether it is sandboxed,
;; what "always" would allow) and about a call of an MCP server's tool
;; (kind "call": the server, the tool and its arguments, which the
;; server redacted and bounded).  The details are shown in the
;; question's buffer beside the minibuffer question; quitting it (C-g)
;; answers nothing, and the command or the call does not run.  "Reject
;; and say why" asks for the words the model reads, as for a change.

;;; Code:

(require 'cl-lib)
(require 'subr-x)

(declare-function lockstep-approval--display "lockstep-approval" (insert mode))
(declare-function lockstep-approval--choose "lockstep-approval" (window prompt choices))

(defun lockstep-approval-details--lines (question)
  "The lines that show QUESTION (a plist: a command or an MCP call)."
  (let ((kind (plist-get question :kind)))
    (if (equal kind "command")
        (let* ((cwd (plist-get question :cwd))
               (decisions (append (plist-get question :decisions) nil))
               (prefixes (append (plist-get question :prefixes) nil))
               (reasons (append (plist-get question :reasons) nil)))
          (append
           (list (format "run_command in %s:"
                         (if (or (null cwd) (equal cwd ".")) "the project root" cwd)))
           (mapcar (lambda (line) (concat "  $ " line))
                   (split-string (or (plist-get question :command) "") "\n"))
           (list (or (plist-get question :sandbox) ""))
           (when reasons
             (list (format "Asked because: %s." (string-join reasons "; "))))
           (list (if (and (member "always" decisions) prefixes)
                     (format "Always would allow: %s for this session"
                             (mapconcat (lambda (p) (format "`%s`" p)) prefixes ", "))
                   "This command cannot be allowed for the session; it is asked about each time."))))
      (append
       (list (format "MCP server %s, tool %s (%s)" (plist-get question :server)
                     (plist-get question :server_tool) (plist-get question :tool))
             "Arguments:")
       (mapcar (lambda (line) (concat "  " line))
               (split-string (or (plist-get question :arguments) "{}") "\n"))))))

(defun lockstep-approval-details--choices (question)
  "The answers QUESTION takes, as shown and as sent, in the order offered."
  (let ((decisions (append (plist-get question :decisions) nil)))
    (if (equal (plist-get question :kind) "command")
        (append '(("Run once" . "once"))
                (when (member "always" decisions)
                  (list (cons (or (plist-get question :always)
                                  "Always allow this command this session")
                              "always")))
                '(("Reject" . "reject") ("Reject and say why" . reason))
                (when (member "stop" decisions) '(("Stop the run" . "stop"))))
      (append
       (list '("Apply" . "apply")
             (cons (format "Always allow %s this session" (plist-get question :tool)) "always_tool")
             (cons (format "Always allow server %s this session" (plist-get question :server))
                   "always_server")
             '("Reject" . "reject")
             '("Reject and say why" . reason))
       (when (member "stop" decisions) '(("Stop the run" . "stop")))))))

(defun lockstep-approval-details--prompt (question)
  "One line for the minibuffer; the buffer beside shows the rest of QUESTION."
  (if (equal (plist-get question :kind) "command")
      (let ((cwd (plist-get question :cwd))
            (lines (split-string (or (plist-get question :command) "") "\n")))
        (format "lockstep wants to run%s: %s%s"
                (if (or (null cwd) (equal cwd ".")) "" (format " in %s" cwd))
                (car lines) (if (cdr lines) " ..." "")))
    (format "lockstep wants to call %s on the MCP server %s"
            (plist-get question :server_tool) (plist-get question :server))))

(defun lockstep-approval-details (question)
  "Ask about QUESTION (a command or an MCP call), its details shown beside.
Return the answer plist for the server, or nil for no choice."
  (let ((window (lockstep-approval--display
                 (lambda ()
                   (insert (string-join (lockstep-approval-details--lines question) "\n") "\n"))
                 #'fundamental-mode)))
    (lockstep-approval--choose window (lockstep-approval-details--prompt question)
                               (lockstep-approval-details--choices question))))

(provide 'lockstep-approval-details)

;;; lockstep-approval-details.el ends here

;;; lockstep-wrap.el --- lockstep in front of your own language server -*- lexical-binding: t; -*-

;; Author: lockstep contributors
;; SPDX-License-Identifier: MIT

;; This file is not part of GNU Emacs.

;;; Commentary:

;; Wrap mode, part of the lockstep package: load lockstep.el, which
;; loads this file.  `lockstep-wrap' and `lockstep-wrap-all' put
;; entries in `eglot-server-programs' that start
;;   lockstep --stdio --wrap -- PROGRAM ARGS...
;; one server to Eglot with PROGRAM's completion, hover and diagnostics
;; and lockstep's commands and agent.  `lockstep-register' (lockstep.el)
;; keeps these entries ahead of its own.
;;
;; The commands' autoloads name lockstep.el: they need the whole
;; package, and lockstep.el loads this file with the rest of it.

;;; Code:

(require 'cl-lib)
(require 'eglot)

;; Defined in lockstep.el, which loads this file (so no `require' here),
;; with the server class `lockstep-wrap-server' that the contacts name.
(defvar lockstep-server-command)
(defvar lockstep--wrap-contacts)
(declare-function lockstep--wrap-entry-p "lockstep" (entry))

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

;;;###autoload (autoload 'lockstep-wrap "lockstep")
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

;;;###autoload (autoload 'lockstep-wrap-all "lockstep" nil t)
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

(provide 'lockstep-wrap)
;;; lockstep-wrap.el ends here

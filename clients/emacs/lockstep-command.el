;;; lockstep-command.el --- The agent's commands: buffers saved first, output shown -*- lexical-binding: t; -*-

;; Part of lockstep (loaded by lockstep.el).  Before the agent runs a
;; command (run_command), the server asks lockstep's own clients to
;; save the buffers of the files the conversation changed, with the
;; `lockstep/saveFiles' request: otherwise the command (the tests, the
;; build) would run on the disk's older text.  Each named buffer that
;; is visited and modified is saved as `save-buffer' would (its hooks
;; run, and Emacs asks as usual when the file changed on disk since it
;; was visited); the answer names the files saved and those that could
;; not be, with why.  A file no buffer visits is left alone: the server
;; reads the disk again and tells the model what the command did not see.
;;
;; While the command runs, its output comes as `lockstep/stream'
;; notifications of kind "output": they are shown in *lockstep* as
;; they come, each line after a bar, so the user tells them from the
;; model's answer.

;;; Code:

(require 'cl-lib)
(require 'eglot)

(defun lockstep-command--path (uri)
  "The file name of URI, with whichever name this Eglot gives the function."
  (if (fboundp 'eglot-uri-to-path)
      (funcall #'eglot-uri-to-path uri)
    (eglot--uri-to-path uri)))

(defun lockstep-command-save-buffers (uris)
  "Save the modified buffers visiting URIS; return the answer plist.
`:saved' holds the uris saved, `:failed' a plist of `:uri' and
`:message' for each save that failed or was declined."
  (let (saved failed)
    (dolist (uri (append uris nil))
      (let ((buffer (and (stringp uri) (find-buffer-visiting (lockstep-command--path uri)))))
        (when (and buffer (buffer-modified-p buffer))
          (condition-case err
              (with-current-buffer buffer
                (save-buffer)
                (if (buffer-modified-p)
                    (push (list :uri uri :message "the buffer is still modified after saving") failed)
                  (push uri saved)))
            ((error quit)
             (push (list :uri uri :message (error-message-string err)) failed))))))
    (list :saved (vconcat (nreverse saved)) :failed (vconcat (nreverse failed)))))

(cl-defmethod eglot-handle-request
  ((_server lockstep-server) (_method (eql lockstep/saveFiles)) &key uris &allow-other-keys)
  "Save the buffers of URIS before the agent runs a command."
  (lockstep-command-save-buffers uris))

;;;; Output

(defvar lockstep-command--open-at nil
  "The chat's size when it ended in an unfinished line of output, else nil.
Anything written since (an event line, the answer) closes that line.")

(defun lockstep-command-output (text)
  "Show TEXT, a running command's output, in the chat as it comes."
  (when (and (stringp text) (not (string-empty-p text)))
    (let* ((continue (equal lockstep-command--open-at
                            (buffer-size (lockstep--chat-buffer))))
           (ends (string-suffix-p "\n" text))
           (lines (split-string (if ends (substring text 0 -1) text) "\n"))
           (shown (mapconcat #'identity
                             (cons (if continue (car lines) (concat "│ " (car lines)))
                                   (mapcar (lambda (line) (concat "│ " line)) (cdr lines)))
                             "\n")))
      (lockstep--chat-write shown continue)
      (setq lockstep--line-open nil
            lockstep-command--open-at (and (not ends) (buffer-size (lockstep--chat-buffer)))))))

;;; lockstep-command.el ends here

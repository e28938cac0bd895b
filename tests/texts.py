"""The bot's English texts that tests compare with (:data:`jobs.phrases.WORDS` and
:data:`bots.chat_phrases.SAY` in English)."""

from __future__ import annotations

from bots.chat_phrases import SAY
from jobs.phrases import WORDS

ANSWERED_TEXT = WORDS("answered_status")
CANCELLED_TEXT = WORDS("cancelled")
CANCELLED_QUEUED = CANCELLED_TEXT
CLARIFY_STATUS_TEXT = WORDS("clarify_status")
DELAYED_NOTE = WORDS("delayed_note")
DONE_TEXT = WORDS("done_status")
FAILED_TEXT = WORDS("failed_status")
FILES_FOLLOW_TEXT = WORDS("files_follow_status")
HANDED_BACK_FILES_TEXT = WORDS("handed_back_files_status")
HANDED_BACK_TEXT = WORDS("handed_back_status")
LATE_CANCEL_NOTE = WORDS("late_cancel_note")
LOST_TEXT = WORDS("lost_text")
QUEUE_DOWN = WORDS("queue_down")
RETRYING_TEXT = WORDS("retrying_status")
UPLOAD_COMMENT = WORDS("upload_comment")

# what the chat adapters say themselves
ERROR_LINE = SAY("error_line")
TRY_AGAIN = SAY.catalogue["try_again"]["en"]  # its ``{ref}`` filled by the test

"""The conversation core: a platform-neutral message, the rules as a pure function, the replies."""

from jobs.conversation.message import Address, Attachment, Mention, Message, is_cancel
from jobs.conversation.replies import reply_for
from jobs.conversation.rules import Action, Decision, RuleSettings, decide

__all__ = [
    "Action",
    "Address",
    "Attachment",
    "Decision",
    "Mention",
    "Message",
    "RuleSettings",
    "decide",
    "is_cancel",
    "reply_for",
]

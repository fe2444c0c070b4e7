"""What happened in each conversation: its turns with their sources, feedback, exports.

The agent's checkpointer keeps what the agent needs to continue a conversation; this
package keeps what people need to read it back, rate it and export it.
"""

from archivist.conversations.export import (
    feedback_items,
    json_export,
    markdown_export,
    title_from_question,
)
from archivist.conversations.store import (
    Feedback,
    TurnLog,
    TurnRecord,
    recorded,
    settings_used,
)

__all__ = [
    "Feedback",
    "TurnLog",
    "TurnRecord",
    "feedback_items",
    "json_export",
    "markdown_export",
    "recorded",
    "settings_used",
    "title_from_question",
]

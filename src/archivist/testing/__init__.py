"""A scripted chat model: run and test Archivist (and your own prompts) with no LLM at all.

``ScriptedChatModel`` is a real LangChain chat model. It supports ``bind_tools`` and
``with_structured_output``, streams token by token, and records every call in ``calls``
(the messages, the tools offered, the structured-output schema, start and end times).

Each call is answered by, in order:

1. the next entry of ``script`` (an ``AIMessage``, a string, a pydantic instance for
   structured output, a callable ``(messages, info) -> reply``, or an exception
   instance, which is raised: inject transient errors to test retries), when it fits
   the call: a pydantic instance answers only a structured call for its own schema, and
   a structured call takes no message or string from the script (so grading calls do
   not eat a script written for the research loop); an entry that does not fit waits;
   callables and exceptions fit any call;
2. the first of ``rules`` (callables ``(messages, info) -> reply | None``) that returns
   something other than ``None`` and other than a pydantic object of another schema (a
   rule may return a message or text to a structured call: that is how to test bad
   structured output);
3. the built-in deterministic behaviour (unless ``use_default=False``, which raises
   :class:`ScriptExhausted` instead):

   - structured output: the fields :data:`STRUCTURED_REPLIES` gives for the schema's
     name (question analysis: "clear, one sub-question = the question", greetings routed
     to a direct reply; grading: passages sharing a word with the question are relevant),
     the rest from the schema's defaults; any other schema is built from its defaults;
   - tools offered, including ``search_documents``, and no tool result yet: search with
     the question; tool results already there and the prompt asking for a single word
     once enough is gathered (``reply with the single word "DONE"``): that word;
   - a ``<statement>`` block in the last message (a yes/no check): "yes" when the
     passages hold at least half its content words, else "no";
   - ``<sub_answer>`` blocks in the last message: join their texts;
   - ``<passage>`` blocks anywhere: quote the passage sharing most words with the question
     (ties: the earlier, better-ranked one) with its citation ``[document, pages]``; when no
     passage shares a word with it, an abstention in the words the call's prompt asks for
     (``reply "<text> ..."``; "No passage answers ..." when no prompt says);
   - otherwise: a short echo of the last message.

"The question" is the text after the latest ``Question:`` line of the user messages, or
the last user message.
Select it for the whole app with ``ARCHIVIST_LLM__MODEL=scripted``.
"""

from __future__ import annotations

from archivist.testing.model import CallRecord, ScriptedChatModel, ScriptExhausted
from archivist.testing.replies import (
    STRUCTURED_REPLIES,
    CallInfo,
    Reply,
    ReplyFn,
    default_reply,
    passages_in,
    question_of,
    quote_best_passage,
    tool_call,
)

__all__ = [
    "STRUCTURED_REPLIES",
    "CallInfo",
    "CallRecord",
    "Reply",
    "ReplyFn",
    "ScriptExhausted",
    "ScriptedChatModel",
    "default_reply",
    "passages_in",
    "question_of",
    "quote_best_passage",
    "tool_call",
]

"""Untrusted text made safe to sit inside a prompt: document text is data, never structure.

Everything that did not come from Archivist's own prompt templates (document text and
names, web results, earlier answers, the model's own notes and queries) passes through
:func:`quote_data` or :func:`quote_attr` before it enters a prompt, so that it cannot

- close the data block it sits in or open another one (``</passage>``,
  ``<sub_answer ...>``, ``<history>``, ``<statement>``: every tag-like ``<`` becomes
  ``&lt;``);
- pose as a chat-template turn (``<|im_start|>system``, ``<|eot_id|>``: same rule);
- add a line the prompts use as structure (``Question: ...``);
- break out of a header attribute (``"``, ``<``, ``>`` and line breaks in names).

Both are idempotent: quoting quoted text changes nothing, so evidence stored quoted can be
rendered into a block again.
"""

from __future__ import annotations

import re

#: ``<`` that opens something tag-like: ``<tag``, ``</tag``, ``< /tag``, ``<|token|>``,
#: ``<!-- -->``, ``<?xml``. A ``<`` followed by a space or a digit (``x < 5``) stays.
_TAG_OPEN = re.compile(r"<(?=\s*/?\s*[A-Za-z_|!?])")
#: What ``_TAG_OPEN`` made of such a ``<``.
_QUOTED_TAG = re.compile(r"&lt;(?=\s*/?\s*[A-Za-z_|!?])")
#: A line that would read as one of the prompts' own structure lines.
_STRUCTURE_LINE = re.compile(
    r"^(\s*)(question|system|user|assistant|human|instructions?)(\s*:)", re.I | re.M
)


def quote_data(text: str) -> str:
    """``text`` as inert data for the inside of a prompt block."""
    return _STRUCTURE_LINE.sub(r"\1(quoted) \2\3", _TAG_OPEN.sub("&lt;", text))


def unquote_answer(text: str) -> str:
    """An answer as its reader sees it: the ``&lt;`` and ``&gt;`` quoting made are ``<``, ``>``.

    A model copies a quoted ``<Ctrl>`` as the ``&lt;Ctrl>`` it was shown, and a document
    name as its quoted header attribute. Only for text
    leaving the agent: the answer is quoted again whenever it re-enters a prompt (as
    history), and every interface treats answer text as untrusted already.
    """
    return _QUOTED_TAG.sub("<", text).replace("&gt;", ">")


def quote_attr(value: str) -> str:
    """``value`` safe inside a double-quoted header attribute: one line, no quote or tag."""
    value = " ".join(str(value).split())
    return value.replace('"', "'").replace("<", "&lt;").replace(">", "&gt;")


def one_line(text: str) -> str:
    """``text`` on one line (for a ``Question:`` line that must stay one line)."""
    return " ".join(str(text).split())

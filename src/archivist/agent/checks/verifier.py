"""A yes/no verification call per sentence the claim check passed (``verify_claims``).

The checks in ``claims.py`` are code: they see that a sentence's names,
numbers and words are in the passages it cites, not that the passages say it of the same
thing ("whose godmother is Edda Lindqvist" over a passage that names her as the
manuscript's copyist). A model that reads well can tell; the call is short (the sentence
and its cited units, a one-word reply) and only vetoes: a reply other than "no" leaves
the sentence as the code found it.
"""

from __future__ import annotations

from collections.abc import Callable

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage, SystemMessage

from archivist.agent import prompts
from archivist.agent.quoting import quote_data
from archivist.agent.state import Evidence
from archivist.agent.steps import message_text
from archivist.agent.tools import numbered_block
from archivist.llm.structured import reply_capped

#: Reply tokens of a verification call: one word, with room for a model's "No." or "yes,".
VERIFY_TOKENS = 4


def model_verifier(llm: BaseChatModel) -> Callable[[str, str, list[Evidence]], bool]:
    """``verify(question, claim, cited units)``: False only when the model answers no.

    The units are shown as the writer saw them (``<passage n=... section=...>``), the
    statement in its own data block: both are untrusted text.
    """
    capped = reply_capped(llm, VERIFY_TOKENS)

    def verify(question: str, claim: str, cited: list[Evidence]) -> bool:
        passages = "\n".join(numbered_block(n, item) for n, item in enumerate(cited, start=1))
        reply = capped.invoke([
            SystemMessage(prompts.VERIFY_SYSTEM),
            HumanMessage(prompts.VERIFY_USER.format(
                passages=passages, question=quote_data(" ".join(question.split())),
                claim=quote_data(claim))),
        ])
        return not says_no(message_text(reply.content))

    return verify


def says_no(reply: str) -> bool:
    """Whether a verification reply is a no ("No", "no.", "NO, the passage ...")."""
    words = reply.strip().lstrip("*\"'` ").split(maxsplit=1)
    return bool(words) and words[0].strip(".,!:;*\"'`").lower() == "no"

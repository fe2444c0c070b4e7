"""The answer stage: a draft shaped by a profile's named steps, then one decision.

``draft.py`` (the answer and its checked sentences), ``steps.py`` (the steps, by name),
``shaping.py`` (the text steps), ``decision.py`` (answer or abstain, by one score).
"""

from archivist.agent.answer.decision import STRICTNESS, Decision, decide
from archivist.agent.answer.draft import Checker, Draft
from archivist.agent.answer.steps import STEPS, Tools, run_steps

__all__ = ["STEPS", "STRICTNESS", "Checker", "Decision", "Draft", "Tools", "decide", "run_steps"]

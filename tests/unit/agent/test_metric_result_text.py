"""How a computed metric's result is shown: the rounding asked, or enough digits to read."""

from __future__ import annotations

from archivist.agent.question.answer_format import AnswerFormat
from archivist.agent.research.metric_answer import result_text
from archivist.filings.metrics import MetricResult


def _shown(value: float, unit: str, wanted: AnswerFormat) -> str:
    return result_text(MetricResult("m", "f", value=value, unit=unit), wanted,
                       wanted.decimals if wanted.decimals is not None else 2)


def test_a_small_ratio_keeps_three_significant_digits_when_no_rounding_is_asked() -> None:
    assert _shown(0.014821, "", AnswerFormat()) == "0.0148"
    assert _shown(0.0021, "ratio", AnswerFormat()) == "0.00210"
    assert _shown(1.4821, "ratio", AnswerFormat()) == "1.48"


def test_the_rounding_asked_is_kept_for_a_small_ratio() -> None:
    assert _shown(0.014821, "", AnswerFormat(decimals=2)) == "0.01"
    assert _shown(0.014821, "", AnswerFormat(percent=True)) == "1.48%"

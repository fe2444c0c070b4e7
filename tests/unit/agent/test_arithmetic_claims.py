"""A figure a claim works out is held when code finds its arithmetic right; its operands
are still checked against the passages."""

from __future__ import annotations

from archivist.agent.checks.arithmetic import derived_figures
from archivist.agent.checks.claims import check_claim, missing_facts

ROW = "| line_item | h1_fy2021 | h2_fy2021 |\n| Net sales | 2,418 | 2,507 |"


def test_the_results_of_right_equations_are_derived() -> None:
    assert derived_figures("2418 + 2507 = 4925") == ["4925"]
    assert derived_figures("The halves add up to $4,925 million ($2,418 + $2,507).") == \
        ["4,925"]
    assert derived_figures("(2,507 − 2,418) ÷ 2,418 × 100 = 3.68%") == ["3.68"]
    assert derived_figures("(2,507 - 2,418) / 2,418 = 3.7%") == ["3.7"]  # a fraction as %
    assert derived_figures("margin = 311 / 2,507 = 0.124") == ["0.124"]


def test_wrong_arithmetic_and_plain_figures_derive_nothing() -> None:
    assert derived_figures("2418 + 2507 = 4952") == []
    assert derived_figures("(2,507 − 2,418) ÷ 2,418 × 100 = 4.1%") == []
    assert derived_figures("Net sales were 2,418 in the first half and 2,507 in the second.") \
        == []
    assert derived_figures("1 / 0 = 5") == []
    assert derived_figures("2,418 - 2,507 = -$89") == ["89"]  # a signed amount


def test_a_sum_written_out_is_supported_by_the_row_of_its_operands() -> None:
    claim = check_claim("2,418 + 2,507 = 4,925 [1]", [1], [ROW], None)
    assert claim.supported, claim.reason
    wrong = check_claim("2,418 + 2,507 = 4,952 [1]", [1], [ROW], None)
    assert not wrong.supported and "4,952" in wrong.reason


def test_an_operand_the_passages_lack_is_still_missing() -> None:
    assert missing_facts("2418 + 2600 = 5018", ROW) == ["2600"]
    assert missing_facts("The two halves came to 4,925 (2,418 + 2,507).", ROW) == []

"""The agent's scenarios on the real 1.5B model, run several times: each one's pass rate.

Runs ``tests/agent/scenarios`` (pytest) ``--runs`` times in a row, each run a fresh library
and model load, and appends every scenario's outcome and duration to ``--json`` (so runs
taken in separate sittings add up), then prints the table of this invocation's runs
(``--table-only``: of every run recorded)::

    python bench/scenarios_bench.py --runs 3 --json bench/results/scenarios.json
    python bench/scenarios_bench.py --table-only --json bench/results/scenarios.json

``CI=true`` is set for the runs: a missing model or missing PDFs fail, never skip.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
SCENARIOS = "tests/agent/scenarios/test_real_model_scenarios.py"


def run_once(extra: list[str]) -> dict[str, Any]:
    """One pytest run of the scenarios: per test, passed or not and seconds."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "junit.xml"
        started = time.perf_counter()
        env = {**os.environ, "CI": "true", "HF_HUB_OFFLINE": "1"}
        code = subprocess.call(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-s",
             f"--junitxml={report}", SCENARIOS, *extra], cwd=REPO, env=env,
        )
        wall = time.perf_counter() - started
        outcomes: dict[str, dict[str, Any]] = {}
        if report.is_file():
            for case in ET.parse(report).getroot().iter("testcase"):
                failed = any(child.tag in ("failure", "error", "skipped") for child in case)
                outcomes[case.get("name", "?")] = {
                    "passed": not failed, "seconds": float(case.get("time") or 0),
                }
    return {"started": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "exit": code, "wall_seconds": round(wall, 1), "scenarios": outcomes}


def table(runs: list[dict[str, Any]]) -> str:
    """Markdown: each scenario's passes over the runs, and its median seconds."""
    names: list[str] = []
    for run in runs:
        names += [n for n in run["scenarios"] if n not in names]
    lines = ["| scenario | passed | median s |", "| --- | ---: | ---: |"]
    for name in names:
        seen = [r["scenarios"][name] for r in runs if name in r["scenarios"]]
        passed = sum(1 for s in seen if s["passed"])
        median = statistics.median(s["seconds"] for s in seen)
        label = name.removeprefix("test_").replace("_", " ")
        lines.append(f"| {label} | {passed}/{len(seen)} | {median:.0f} |")
    walls = [r["wall_seconds"] for r in runs]
    if walls:
        lines.append("")
        lines.append(f"{len(runs)} runs; wall time per run (model load, ingest, all "
                     f"scenarios): median {statistics.median(walls):.0f} s, max {max(walls):.0f} s")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json", type=Path, default=REPO / "bench" / "results" / "scenarios.json")
    parser.add_argument("--table-only", action="store_true", help="print the recorded runs")
    parser.add_argument("pytest_args", nargs="*", help="passed to pytest (e.g. -k greeting)")
    args = parser.parse_args()
    recorded: list[dict[str, Any]] = []
    if args.json.is_file():
        recorded = json.loads(args.json.read_text(encoding="utf-8"))
    if not args.table_only:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        for number in range(1, args.runs + 1):
            print(f"--- scenarios run {number}/{args.runs}", flush=True)
            recorded.append(run_once(args.pytest_args))
            args.json.write_text(json.dumps(recorded, indent=1), encoding="utf-8")
    print(table(recorded if args.table_only else recorded[-args.runs:]))
    return 0 if recorded and all(r["exit"] == 0 for r in recorded[-args.runs:]) else 1


if __name__ == "__main__":
    sys.exit(main())

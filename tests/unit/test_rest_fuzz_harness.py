"""The REST fuzz scenario explains itself: a run that does not hold names
every failing operation (a check's failure or a request left without an
answer) with why, or the whole run (a crash, its time budget spent)."""

from __future__ import annotations

import re
import subprocess
import sys
from typing import Any

import pytest

from ..paths import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "evals"))

import reliability_fuzz  # noqa: E402
from reliability_fuzz import junit_failures, role_gated_paths, schemathesis_run  # noqa: E402

JUNIT = """<?xml version="1.0" encoding="UTF-8"?>
<testsuites errors="1" failures="1" skipped="0" tests="3" time="9.0">
<testsuite name="schemathesis" errors="1" failures="1" skipped="0" tests="3" time="9.0">
<testcase name="GET /v1/facts" time="1.0"/>
<testcase name="GET /v1/memories/search" time="7.0"><error>Network Error

Connection broken: [Errno 104] Connection reset by peer

    curl -X GET 'http://127.0.0.1:1/v1/memories/search?episode=EPISODE&amp;query=0'</error>
</testcase>
<testcase name="POST /v1/facts" time="1.0"><failure message="ST101">Server error</failure>
</testcase>
</testsuite></testsuites>""".replace("EPISODE", "a" * 5000)


def test_errors_and_failures_in_the_report_are_named_with_why():
    failed = junit_failures(JUNIT)
    assert [(f["operation"], f["outcome"]) for f in failed] == [
        ("GET /v1/memories/search", "error"), ("POST /v1/facts", "failure")]
    assert "Connection reset by peer" in failed[0]["reason"]
    assert "<5000 x 'a'>" in failed[0]["reason"] and len(failed[0]["reason"]) <= 600


def _fake_run(returncode: int, junit: str, timeout: bool = False) -> Any:
    def run(cmd: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        if timeout:
            raise subprocess.TimeoutExpired(cmd, kwargs["timeout"], output=b"half a run")
        path = cmd[cmd.index("--report-junit-path") + 1]
        if junit:
            with open(path, "w") as out:
                out.write(junit)
        return subprocess.CompletedProcess(cmd, returncode, "Test cases:\n  3 generated", "")
    return run


@pytest.mark.parametrize(("returncode", "junit", "timeout", "operation", "outcome"), [
    (1, JUNIT, False, "GET /v1/memories/search", "error"),
    (2, "", False, "(whole run)", "error"),
    (0, "", False, "(whole run)", "error"),
    (None, "", True, "(whole run)", "timeout"),
])
def test_a_run_that_does_not_hold_names_what_failed(monkeypatch: pytest.MonkeyPatch,
                                                    returncode: int, junit: str,
                                                    timeout: bool, operation: str,
                                                    outcome: str):
    monkeypatch.setattr(reliability_fuzz.subprocess, "run", _fake_run(returncode, junit, timeout))
    result = schemathesis_run("http://127.0.0.1:1/v1/openapi.json", "tok", 3, 30.0, [])
    assert result["holds"] is False
    assert (result["failed_operations"][0]["operation"],
            result["failed_operations"][0]["outcome"]) == (operation, outcome)
    assert all(f["reason"] for f in result["failed_operations"])


def test_a_clean_run_holds(monkeypatch: pytest.MonkeyPatch):
    clean = re.sub(r"<error>.*?</error>|<failure.*?</failure>", "", JUNIT, flags=re.S)
    monkeypatch.setattr(reliability_fuzz.subprocess, "run", _fake_run(0, clean))
    result = schemathesis_run("http://127.0.0.1:1/v1/openapi.json", "tok", 3, 30.0, [])
    assert result["holds"] is True and result["failed_operations"] == []


def test_the_operator_run_covers_the_role_gated_routes_only():
    gated = re.compile(role_gated_paths())
    assert gated.match("/v1/operator/tokens/someone/rotate")
    assert gated.match("/v1/review/abc/decide") and gated.match("/v1/board/messages/redact")
    assert not gated.match("/v1/memories") and not gated.match("/v1/operator/tokens/x")

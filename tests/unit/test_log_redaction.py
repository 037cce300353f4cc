"""The access log never carries a token (issue 20 section 4): server/cli/logs.py."""

from __future__ import annotations

import logging

from uvicorn.logging import AccessFormatter

from server.cli.logs import RedactTokens, log_config, redact


def test_redact_replaces_every_token_parameter_and_keeps_the_rest() -> None:
    assert redact("/ws/encounters/e?token=abc_DEF-1&after=3") == (
        "/ws/encounters/e?token=[redacted]&after=3"
    )
    assert redact("/x?a=1&TOKEN=zz") == "/x?a=1&TOKEN=[redacted]"
    assert redact("/api/encounters/e?after=3") == "/api/encounters/e?after=3"


def test_an_access_record_with_a_token_in_its_request_line_is_formatted_without_it() -> None:
    record = logging.LogRecord(
        "uvicorn.access", logging.INFO, __file__, 1, '%s - "%s %s HTTP/%s" %d',
        ("127.0.0.1:5", "GET", "/ws/encounters/e?token=s3cret&after=1", "1.1", 101), None,
    )  # fmt: skip
    assert RedactTokens().filter(record) is True  # redacted, never dropped
    line = AccessFormatter("%(request_line)s").format(record)
    assert "s3cret" not in line and "token=[redacted]&after=1" in line


def test_every_handler_of_the_served_log_config_redacts() -> None:
    config = log_config()
    assert config["handlers"] and all(
        "redact_tokens" in h["filters"] for h in config["handlers"].values()
    )

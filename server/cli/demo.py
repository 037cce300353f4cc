"""`fracas demo`: a ready encounter made through a running server's HTTP API.

Over HTTP, not on a database of its own: the encounter lives where the server that will
show it reads, so every printed link opens. Standard library only (urllib).
"""

from __future__ import annotations

import argparse
import json
import urllib.error
import urllib.request
from typing import Any
from urllib.parse import urlsplit

from server.bootstrap import UserError

DEMO_SIDES = ("heroes", "foes")
TIMEOUT = 15.0  # seconds per request; a server under load still answers well within it


def server_url(raw: str) -> str:
    """An argparse type: http(s)://host[:port], without a trailing slash."""
    parts = urlsplit(raw.strip())
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise argparse.ArgumentTypeError(f"{raw!r} is not a server URL like http://127.0.0.1:8000")
    try:
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError as e:
        raise argparse.ArgumentTypeError(f"{raw!r}: {e}") from None
    return raw.strip().rstrip("/")


class _Client:
    """JSON requests to one Fracas server; failures become UserErrors."""

    def __init__(self, base: str) -> None:
        self.base = base

    def call(self, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        headers = {"Accept": "application/json"}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        request = urllib.request.Request(self.base + path, data, headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=TIMEOUT) as answer:
                return self._json(answer.read(), path)
        except urllib.error.HTTPError as e:
            raise UserError(self._refusal(e, path)) from None
        except (urllib.error.URLError, OSError) as e:
            reason = getattr(e, "reason", e)
            why = getattr(reason, "strerror", None) or str(reason)
            raise UserError(
                f"no Fracas server answers at {self.base}: start one with `fracas serve` ({why})"
            ) from None

    def _json(self, raw: bytes, path: str) -> Any:
        try:
            return json.loads(raw)
        except ValueError:
            raise UserError(
                f"{self.base} answers {path} with something other than JSON: is it a Fracas server?"
            ) from None

    def _refusal(self, error: urllib.error.HTTPError, path: str) -> str:
        try:
            message = json.loads(error.read())["error"]["message"]
        except (ValueError, KeyError, TypeError):
            return (
                f"{self.base} answered {error.code} to {path}: "
                "is it a Fracas server? (start one with `fracas serve`)"
            )
        return f"the server at {self.base} refused: {message}"


def demo(args: argparse.Namespace) -> int:
    """Create an encounter with two sample combatants and print its links."""
    client = _Client(args.url)
    listed = client.call("GET", "/api/rulesets")
    if not isinstance(listed, list):
        raise UserError(f"{args.url} answers /api/rulesets oddly: is it a Fracas server?")
    known = {r["id"]: r for r in listed}
    ruleset = known.get(args.ruleset)
    if ruleset is None:
        raise UserError(
            f"the server at {args.url} has no rule system {args.ruleset!r}; "
            f"it has: {', '.join(sorted(known))}"
        )
    made = client.call(
        "POST", "/api/encounters", {"ruleset": args.ruleset, "name": f"Demo ({args.ruleset})"}
    )
    eid, links = made["id"], made["links"]
    gm = made["gm_token"]
    print(f"encounter {eid}")
    print(f"GM console:  {args.url}{links['gm']}")
    print(f"board:       {args.url}{links['board']}")
    for i, preset in enumerate(list(ruleset.get("presets") or {})[:2]):
        body = {
            "type": "add_combatant",
            "name": preset,
            "side": DEMO_SIDES[i % 2],
            "preset": preset,
        }
        added = client.call("POST", f"/api/encounters/{eid}/commands", body, token=gm)
        link = f"{args.url}/e/{eid}#token={added['player_token']}&as={added['combatant_id']}"
        print(f"player ({preset}): {link}")
    return 0

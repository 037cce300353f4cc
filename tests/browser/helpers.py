"""What a browser test builds before it opens a page: encounters and Wars made over HTTP.

Each test makes its own encounter or War with these (nothing is shared between tests),
then opens only the pages it checks (`browser.open` in tests/browser/conftest.py), e.g.

    enc = Encounter.create(ui_server.base, "d20-na", "Ambush at the bridge")
    milicien, fangeux = enc.add("Milicien", "heroes", "milicien"), enc.add(...)
    enc.start()
    gm = browser.open(enc.gm_link, "gm", remember=enc.remembered())

`remembered()` is what the page itself would have saved in localStorage had the GM made
the encounter (or War) in this browser: its tokens and the players' links, so the GM
console shows them (`#link-player-c1`, `#link-spectator`, `#war-link`).

Also here: the viewport sizes, Playwright's `expect`, `snap` for the screenshots, and the
classes behind the `console` and `browser` fixtures (for type hints).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

WIDE = {"width": 1280, "height": 860}
NARROW = {"width": 375, "height": 740}


def expect(locator: Any) -> Any:
    """Playwright's `expect` (imported late: Playwright loads only for browser tests)."""
    from playwright.sync_api import expect as pw_expect

    return pw_expect(locator)


def snap(page: Any, shots: Path, name: str, full_page: bool = True) -> None:
    """The page at 1280 px and at 375 px wide (a panel: the viewport, made tall), as
    `<name>-1280.png` and `<name>-375.png` in `shots`."""
    for label, size in (("1280", WIDE), ("375", NARROW)):
        page.set_viewport_size(size if full_page else {**size, "height": 1100})
        page.wait_for_timeout(150)
        page.screenshot(path=str(shots / f"{name}-{label}.png"), full_page=full_page)
    page.set_viewport_size(WIDE)


def _ok(r: httpx.Response, status: int = 200) -> dict[str, Any]:
    assert r.status_code == status, r.text
    body: dict[str, Any] = r.json()
    return body


def presets(base: str, ruleset: str) -> dict[str, dict[str, Any]]:
    """The preset sheets a rule system lists in `GET /api/rulesets`, by name."""
    rulesets = httpx.get(f"{base}/api/rulesets", timeout=10).json()
    found: dict[str, dict[str, Any]] = next(r for r in rulesets if r["id"] == ruleset)["presets"]
    return found


@dataclass
class Encounter:
    """One encounter made over HTTP, and its GM driving it through the API."""

    base: str
    id: str
    name: str
    ruleset: str
    gm_token: str
    spectator_token: str
    players: dict[str, dict[str, str]] = field(default_factory=dict)  # cid -> name, token
    war: str | None = None

    @classmethod
    def create(
        cls,
        base: str,
        ruleset: str,
        name: str,
        settings: dict[str, Any] | None = None,
    ) -> Encounter:
        """`POST /api/encounters`, as the home page's Create button does."""
        body = {"ruleset": ruleset, "name": name, "settings": settings or {}}
        made = _ok(httpx.post(f"{base}/api/encounters", json=body, timeout=10), 201)
        return cls(base, made["id"], name, ruleset, made["gm_token"], made["spectator_token"])

    def command(self, body: dict[str, Any], token: str | None = None) -> dict[str, Any]:
        """One command (the GM's unless `token` is given) that must be accepted."""
        return _ok(
            httpx.post(
                f"{self.base}/api/encounters/{self.id}/commands",
                json=body,
                headers={"Authorization": f"Bearer {token or self.gm_token}"},
                timeout=10,
            )
        )

    def add(self, name: str, side: str, preset: str | None = None, **extra: Any) -> str:
        """Add a combatant (from a preset, or with `sheet=`); its id. Its player token is
        kept for `player_link` and `remembered`."""
        body = {"type": "add_combatant", "name": name, "side": side, **extra}
        body |= {"preset": preset} if preset else {}
        answer = self.command(body)
        cid: str = answer["combatant_id"]
        self.players[cid] = {"name": name, "token": answer["player_token"]}
        return cid

    def start(self, dice: list[int] | None = None) -> None:
        """Start combat (initiative rolled, or compared, by the rule system)."""
        self.command({"type": "start_combat", **({"dice": dice} if dice else {})})

    def board(self, token: str | None = None) -> dict[str, Any]:
        """The board for the token's role (the public board without one)."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return _ok(httpx.get(f"{self.base}/api/encounters/{self.id}", headers=headers, timeout=10))

    def events(self, token: str | None = None) -> list[dict[str, Any]]:
        """Every event, as the GM (or the token's role) may see them."""
        r = httpx.get(
            f"{self.base}/api/encounters/{self.id}/events",
            headers={"Authorization": f"Bearer {token or self.gm_token}"},
            timeout=10,
        )
        events: list[dict[str, Any]] = _ok(r)["events"]
        return events

    def roll_seq(self, purpose: str) -> int:
        """The seq (`data-roll`, `/rolls/{n}`) of the last roll whose purpose contains
        `purpose`."""
        seqs = [
            int(e["data"]["seq"])
            for e in self.events()
            if e["type"] == "die_rolled" and purpose in e["data"]["purpose"]
        ]
        assert seqs, f"no roll for {purpose!r}"
        return seqs[-1]

    def link(self, token: str, fragment: str = "") -> str:
        return f"{self.base}/e/{self.id}#token={token}{fragment}"

    @property
    def gm_link(self) -> str:
        return self.link(self.gm_token, "&role=gm")

    @property
    def spectator_link(self) -> str:
        return self.link(self.spectator_token, "&role=spectator")

    def player_link(self, cid: str) -> str:
        """The link the GM console shows for `cid`'s player (`#link-player-<cid>`)."""
        return self.link(self.players[cid]["token"], f"&as={cid}")

    def remembered(self) -> dict[str, Any]:
        """localStorage as a browser that made this encounter holds it (store.js)."""
        saved = {
            "gm": self.gm_token,
            "spectator": self.spectator_token,
            "name": self.name,
            "ruleset": self.ruleset,
            "created": 1,
            "players": self.players,
            **({"war": self.war} if self.war else {}),
        }
        return {f"fracas:enc:{self.id}": saved}


# A small fight per rule system: (name, side, preset) as the GM adds them, two sides.
CASTS: dict[str, list[tuple[str, str, str]]] = {
    "plain-d100": [("Guard", "watch", "guard"), ("Bandit", "outlaws", "bandit")],
    "d20-na": [("Milicien", "heroes", "milicien"), ("Fangeux", "foes", "fangeux")],
    "ranks-d100": [("J1", "heroes", "J1"), ("Lancer", "heroes", "Lancer"), ("J2", "foes", "J2")],
    "d100-tcs": [
        ("Duelist", "heroes", "duelist"),
        ("Mage", "heroes", "mage"),
        ("Archer", "foes", "archer"),
        ("Spearman", "foes", "spearman"),
    ],
}


def fight(base: str, ruleset: str, name: str = "Skirmish") -> Encounter:
    """An encounter of `ruleset` with its cast (CASTS) added from the presets, started."""
    enc = Encounter.create(base, ruleset, name)
    for who, side, preset in CASTS[ruleset]:
        enc.add(who, side, preset)
    enc.start()
    return enc


def attack(enc: Encounter) -> bool:
    """The current actor attacks its first target with a die of 5, as the board's `legal`
    offers it (the lowest rank where the action has ranks); False if the rule system
    answers no attack with a defence (d100-tcs has no reactions)."""
    b = enc.board(enc.gm_token)
    actor = b["actor"]
    entry = next(
        (e for e in b["legal"][actor] if e["enabled"] and e["action"].startswith("attack")), None
    )
    if entry is None:
        return False
    extra = {"rank": entry["ranks"][0]} if entry.get("ranks") else {}
    body = {"type": "act", "actor": actor, "action": entry["action"], "dice": [5], **extra}
    enc.command({**body, "target": entry["targets"][0]})
    return bool(enc.board(enc.gm_token)["pending"])


def answer(enc: Encounter) -> None:
    """The GM answers the pending attack for its target with its last option (no defence
    where the rule system offers it)."""
    p = enc.board(enc.gm_token)["pending"][0]
    enc.command({"type": "react", "actor": p["target"], "reaction": p["options"][-1]})


@dataclass
class War:
    """One ranks-d100 War (campaign) made over HTTP, and its GM driving it."""

    base: str
    id: str
    name: str
    gm_token: str

    @classmethod
    def create(cls, base: str, name: str, settings: dict[str, Any] | None = None) -> War:
        """`POST /api/campaigns`, as the home page's Start a War button does."""
        body = {"name": name, "ruleset": "ranks-d100", "settings": settings or {}}
        made = _ok(httpx.post(f"{base}/api/campaigns", json=body, timeout=10), 201)
        return cls(base, made["id"], name, made["gm_token"])

    def command(self, body: dict[str, Any]) -> dict[str, Any]:
        """One War command of its GM that must be accepted."""
        return _ok(
            httpx.post(
                f"{self.base}/api/campaigns/{self.id}/commands",
                json=body,
                headers={"Authorization": f"Bearer {self.gm_token}"},
                timeout=10,
            )
        )

    def enroll(self, preset: str, name: str | None = None, master: str | None = None) -> str:
        """Enroll a character from a ranks-d100 preset sheet (named as the preset, as the
        page's form does); its id (`p1`, `p2`, ...)."""
        sheet = presets(self.base, "ranks-d100")[preset]
        body: dict[str, Any] = {"type": "enroll", "name": name or preset, "sheet": sheet}
        body |= {"master": master} if master else {}
        cid: str = self.command(body)["character_id"]
        return cid

    def new_day(self) -> None:
        self.command({"type": "new_day"})

    def state(self) -> dict[str, Any]:
        """The War as `GET /api/campaigns/{id}` shows it."""
        return _ok(httpx.get(f"{self.base}/api/campaigns/{self.id}", timeout=10))

    def character(self, name: str) -> dict[str, Any]:
        found: dict[str, Any] = next(c for c in self.state()["characters"] if c["name"] == name)
        return found

    def maxima(self, name: str) -> dict[str, int]:
        found: dict[str, int] = self.character(name)["maxima"]
        return found

    def open_encounter(self, name: str) -> Encounter:
        """An encounter opened in the War: its characters join as combatants."""
        made = _ok(
            httpx.post(
                f"{self.base}/api/encounters",
                json={"ruleset": "ranks-d100", "name": name, "campaign": self.id},
                headers={"Authorization": f"Bearer {self.gm_token}"},
                timeout=10,
            ),
            201,
        )
        enc = Encounter(
            self.base,
            made["id"],
            name,
            "ranks-d100",
            made["gm_token"],
            made["spectator_token"],
            war=self.id,
        )
        for c in made.get("combatants", []):
            enc.players[c["combatant_id"]] = {"name": c["name"], "token": c["player_token"]}
        return enc

    @property
    def link(self) -> str:
        """The War page as its GM opens it."""
        return f"{self.base}/w/{self.id}#token={self.gm_token}"

    def remembered(self) -> dict[str, Any]:
        """localStorage as a browser that made this War holds it (store.js)."""
        return {f"fracas:war:{self.id}": {"gm": self.gm_token, "name": self.name, "created": 1}}


def seed_script(origin: str, items: dict[str, Any]) -> str:
    """An init script that puts `items` in localStorage for `origin`, keeping any value
    the page saved since (it runs again on every navigation and reload)."""
    data = json.dumps({k: json.dumps(v) for k, v in items.items()})
    return f"""(() => {{
      if (location.origin !== {json.dumps(origin)}) return;
      const items = {data};
      try {{
        for (const [k, v] of Object.entries(items)) {{
          if (localStorage.getItem(k) === null) localStorage.setItem(k, v);
        }}
      }} catch (e) {{ /* storage may be off */ }}
    }})();"""


class ConsoleWatch:
    """Every console error and page error of the pages it watches; some may be allowed
    for a while (the refused connections while the server is down)."""

    def __init__(self) -> None:
        self.errors: list[str] = []
        self.allowed: list[re.Pattern[str]] = []
        self._watched: list[Any] = []

    def watch(self, page: Any, name: str) -> None:
        """Watch `page` (once, however often it is asked), its messages labelled `name`."""
        if any(p is page for p in self._watched):
            return
        self._watched.append(page)
        page.on("console", lambda m: self._console(name, m))
        page.on("pageerror", lambda e: self.errors.append(f"{name}: page error: {e}"))

    def _console(self, name: str, message: Any) -> None:
        if message.type not in ("error", "assert"):
            return
        if any(p.search(message.text) for p in self.allowed):
            return
        self.errors.append(f"{name}: console {message.type}: {message.text}")

    @contextmanager
    def allowing(self, *patterns: str) -> Iterator[None]:
        """Errors matching one of `patterns` (regular expressions) are not counted inside."""
        compiled = [re.compile(p) for p in patterns]
        self.allowed += compiled
        try:
            yield
        finally:
            for p in compiled:
                self.allowed.remove(p)


class Browser:
    """The browser as one test sees it: contexts it makes are its own (closed when the
    test ends) and every page opened in them is watched by the test's `console`."""

    def __init__(self, chromium: Any, console: ConsoleWatch, base: str) -> None:
        self.chromium, self.console, self.base = chromium, console, base
        self.contexts: list[Any] = []

    def new_context(self, name: str = "", **options: Any) -> Any:
        """A fresh context (own localStorage), 1280 px wide and in English unless
        `options` (Playwright's) say otherwise; its pages' messages are labelled `name`."""
        ctx = self.chromium.new_context(**{"viewport": WIDE, "locale": "en-US", **options})
        self.contexts.append(ctx)
        label = name or f"context {len(self.contexts)}"
        ctx.on("page", lambda page: self.console.watch(page, label))
        return ctx

    def open(
        self,
        url: str,
        name: str = "page",
        remember: dict[str, Any] | None = None,
        **options: Any,
    ) -> Any:
        """A new page in a fresh context at `url` (made absolute on the test server),
        watched as `name`; `remember` puts items in the context's localStorage before
        the page's scripts run (see `Encounter.remembered`, `War.remembered`)."""
        ctx = self.new_context(name, **options)
        if remember:
            ctx.add_init_script(script=seed_script(self.base, remember))
        page = ctx.new_page()
        self.console.watch(page, name)
        page.goto(url if url.startswith("http") else self.base + url)
        return page

    def close(self) -> None:
        for ctx in self.contexts:
            ctx.close()
        self.contexts.clear()

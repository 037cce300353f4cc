"""The words of the d20-na 1v1 resolver's report (NA-37..NA-40), English and French:
what `fracas simulate` prints and `POST /api/simulate` answers as `report`."""

from __future__ import annotations

from typing import Any

from projections.log import narrate

_LABELS = {
    "en": {
        "title": "{a} vs {b}: {n} fights ({ruleset}, 1v1 resolver, seed {seed})",
        "wins": "{name} wins",
        "draws": "draws",
        "ci": "95% CI",
        "rounds": "rounds: mean {mean:.2f}, sd {sd:.2f}",
        "damage": "damage per hit: mean {mean:.2f}",
        "rounds_hist": "rounds per fight:",
        "damage_hist": "damage per hit:",
        "example": "One fight (encounter {id}):",
        "example_unsaved": "One fight (not saved):",
        "won": "{name} wins after {rounds} round(s).",
        "drawn": "A draw after {rounds} round(s).",
    },
    "fr": {
        "title": "{a} contre {b} : {n} combats ({ruleset}, résolution 1v1, graine {seed})",
        "wins": "{name} gagne",
        "draws": "nuls",
        "ci": "IC 95 %",
        "rounds": "rounds : moyenne {mean:.2f}, écart-type {sd:.2f}",
        "damage": "dégâts par coup porté : moyenne {mean:.2f}",
        "rounds_hist": "rounds par combat :",
        "damage_hist": "dégâts par coup porté :",
        "example": "Un combat (rencontre {id}) :",
        "example_unsaved": "Un combat (non enregistré) :",
        "won": "{name} l'emporte après {rounds} round(s).",
        "drawn": "Match nul après {rounds} round(s).",
    },
}
LANGS = sorted(_LABELS)  # the languages a fight is told in


def simulation_report(
    summary: Any,
    names: tuple[str, str],
    lang: str,
    ruleset: str,
    seed: str,
    encounter: str | None = None,
) -> str:
    """The statistics and the told fight; `encounter` names where that fight is stored."""
    text = _LABELS[lang]
    pct = "{:5.1f}%".format
    a, b = names
    lines = [text["title"].format(a=a, b=b, n=summary.fights, ruleset=ruleset, seed=seed)]
    width = max(len(text["wins"].format(name=n)) for n in names)
    for side, name in zip(("a", "b"), names, strict=True):
        rate = summary.rates[side]
        label = text["wins"].format(name=name).ljust(width)
        lines.append(
            f"  {label}  {pct(100 * rate.rate)}  ({text['ci']} {pct(100 * rate.low)}"
            f" - {pct(100 * rate.high)})  {summary.wins[side]}"
        )
    if summary.draws:
        lines.append(f"  {text['draws'].ljust(width)}  {pct(100 * summary.draws / summary.fights)}"
                     f"  {summary.draws}")  # fmt: skip
    lines.append(text["rounds"].format(mean=summary.mean_rounds, sd=summary.sd_rounds))
    lines.append(text["damage"].format(mean=summary.mean_damage_per_hit))
    for key, counts in (
        ("rounds_hist", summary.rounds_counts),
        ("damage_hist", summary.damage_counts),
    ):
        if counts:
            lines += ["", text[key], *text_histogram(counts)]
    example = summary.example
    told = text["example"].format(id=encounter) if encounter else text["example_unsaved"]
    lines += ["", told]
    lines.append(narrate(example.events, lang))
    if example.winner is None:
        lines.append(text["drawn"].format(rounds=example.rounds))
    else:
        winner = names[0] if example.winner == "a" else names[1]
        lines.append(text["won"].format(name=winner, rounds=example.rounds))
    return "\n".join(lines)


_EIGHTHS = " ▏▎▍▌▋▊▉"


def text_histogram(counts: Any, width: int = 30) -> list[str]:
    """One line per bucket: its range, a bar of block characters (in eighths), the count."""
    from domain.rules.d20_na.resolver import buckets

    bars = buckets(counts)
    peak = max(b.count for b in bars) or 1
    label = [f"{b.low}" if b.low == b.high else f"{b.low}-{b.high}" for b in bars]
    pad = max(len(x) for x in label)
    out = []
    for b, name in zip(bars, label, strict=True):
        eighths = round(8 * width * b.count / peak)
        bar = "█" * (eighths // 8) + (_EIGHTHS[eighths % 8] if eighths % 8 else "")
        out.append(f"  {name.rjust(pad)} {bar.ljust(width)} {b.count}")
    return out

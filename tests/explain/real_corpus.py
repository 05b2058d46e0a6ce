"""The real pastes of tests/explain/real: each excerpt with its sidecar, as the tests and the benchmark read them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent / "real"
VERDICTS = ("explained", "not-explainable", "outside-model", "nothing")


@dataclass(frozen=True)
class Excerpt:
    """One excerpt: its file, where it was published, the release, the answer expected (from
    reading the thread) and - where running hwlib showed the expectation wrong - the reviewed
    answer with why."""

    id: str
    log: Path
    source: str
    release: str
    mode: str
    partition: str | None
    expected: str
    why: str
    recognised: tuple[int, ...]
    reviewed: str | None
    reviewed_why: str

    @property
    def verdict(self) -> str:
        """The answer hwlib must give: the reviewed one where there is one, else the expected."""
        return self.reviewed or self.expected


def excerpts() -> list[Excerpt]:
    out = []
    for log in sorted(HERE.glob("*.log")):
        side = yaml.safe_load(log.with_suffix(".yaml").read_text(encoding="utf-8"))
        expect = side["expect"]
        reviewed = side.get("reviewed") or {}
        out.append(Excerpt(log.stem, log, side["source"], str(side["release"]["value"]), side.get("mode", "unknown"),
                           side.get("partition"), expect["verdict"], str(expect.get("why", "")).strip(),
                           tuple(expect.get("recognised") or ()), reviewed.get("verdict"),
                           str(reviewed.get("why", "")).strip()))
    return out

"""Layer 3: bounded model checking - the model, the search, its runners, checkpoints, verdicts and coverage.

``explore`` searches one generation; ``check_all`` every generation asked, with checkpoints;
``verdicts`` turns results into the words, files and scenarios people read. The facade loads a
name's module on first use, so the command line reads the vocabulary (its defaults) without
loading the search.
"""

from __future__ import annotations

import importlib
import typing

from .. import compiled

compiled.extend(__path__, __name__)     # model and search are compiled

if typing.TYPE_CHECKING:     # the names' types, for type checkers; at run time __getattr__ loads them
    from .checkpoints import CheckDir, settings
    from .coverage import Coverage
    from .model import Bounds, alphabet, enabled_steps, fingerprint, must_end, state_key
    from .runners import explore
    from .search import CheckResult, Search, Violation
    from .verdicts import (
        Verdict,
        cell_verdict,
        check_all,
        counterexample,
        coverage_text,
        matrix_markdown,
        parse_protocols,
        queued_words,
        short_coverage,
        verdict,
        write_outputs,
    )
    from .vocabulary import (
        DEFAULT_FAULTS,
        DEFAULT_KINDS,
        DEFAULT_MIN_INSYNC_REPLICAS,
        FAULT_WORDS,
        FAULTS,
        TLA_FAULTS,
        CheckError,
        parse_faults,
        parse_kinds,
        profile_faults,
        step_fault,
    )

__all__ = ["DEFAULT_FAULTS", "DEFAULT_KINDS", "DEFAULT_MIN_INSYNC_REPLICAS", "FAULTS", "FAULT_WORDS",
           "TLA_FAULTS", "Bounds", "CheckDir", "CheckError", "CheckResult", "Coverage", "Search", "Verdict",
           "Violation", "alphabet", "cell_verdict", "check_all", "counterexample", "coverage_text", "enabled_steps",
           "explore", "fingerprint", "matrix_markdown", "must_end", "parse_faults", "parse_kinds", "parse_protocols",
           "profile_faults", "queued_words", "settings", "short_coverage", "state_key", "step_fault", "verdict",
           "write_outputs"]

#: the module that defines each public name
_HOME = {
    "CheckDir": "checkpoints", "settings": "checkpoints", "Coverage": "coverage",
    "Bounds": "model", "alphabet": "model", "enabled_steps": "model", "must_end": "model",
    "fingerprint": "model", "state_key": "model",
    "explore": "runners",
    "CheckResult": "search", "Search": "search", "Violation": "search",
    "Verdict": "verdicts", "cell_verdict": "verdicts", "check_all": "verdicts", "counterexample": "verdicts",
    "coverage_text": "verdicts", "matrix_markdown": "verdicts", "parse_protocols": "verdicts",
    "queued_words": "verdicts", "short_coverage": "verdicts", "verdict": "verdicts", "write_outputs": "verdicts",
    "DEFAULT_FAULTS": "vocabulary", "DEFAULT_KINDS": "vocabulary", "DEFAULT_MIN_INSYNC_REPLICAS": "vocabulary",
    "FAULT_WORDS": "vocabulary", "FAULTS": "vocabulary", "TLA_FAULTS": "vocabulary", "CheckError": "vocabulary",
    "parse_faults": "vocabulary", "parse_kinds": "vocabulary", "profile_faults": "vocabulary",
    "step_fault": "vocabulary",
}


def __getattr__(name: str):
    """The public ``name``, from its module (loaded now if it was not)."""
    module = _HOME.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

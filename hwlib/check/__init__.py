"""Bounded model checking - the request, the search, runners, checkpoints, verdicts, coverage: the facade.

A ``CheckSpec`` says what to search and how; ``run`` carries it out (every rule set, with
checkpoints and files when it has a directory); ``explore`` searches one; ``verdicts`` turns
results into the words, files and scenarios people read.
"""

from __future__ import annotations

from .. import compiled

compiled.extend(__path__, __name__)     # fingerprints and search are compiled

from ..model.space import Bounds, alphabet, enabled_steps, fingerprint, must_end, state_key
from ..model.vocabulary import (
    DEFAULT_FAULTS,
    DEFAULT_KINDS,
    DEFAULT_MIN_INSYNC_REPLICAS,
    FAULT_WORDS,
    FAULTS,
    ONE_FAULT,
    TLA_FAULTS,
    CheckError,
    parse_faults,
    parse_kinds,
    profile_faults,
    step_fault,
)
from .checkpoints import CheckDir
from .coverage import Coverage, share_text
from .driver import CheckRun, open_directory, run
from .runners import Hooks, explore
from .search import CheckResult, Search, Violation
from .spec import CheckSpec, parse_protocols
from .verdicts import (
    Verdict,
    budget_words,
    cell_verdict,
    counterexample,
    coverage_text,
    matrix_markdown,
    queued_words,
    short_coverage,
    verdict,
    write_outputs,
)

__all__ = ["DEFAULT_FAULTS", "DEFAULT_KINDS", "DEFAULT_MIN_INSYNC_REPLICAS", "FAULTS", "FAULT_WORDS", "ONE_FAULT",
           "TLA_FAULTS", "Bounds", "CheckDir", "CheckError", "CheckResult", "CheckRun", "CheckSpec", "Coverage",
           "Hooks", "Search", "Verdict", "Violation", "alphabet", "budget_words", "cell_verdict", "counterexample",
           "coverage_text", "enabled_steps", "explore", "fingerprint", "matrix_markdown", "must_end",
           "open_directory", "parse_faults", "parse_kinds", "parse_protocols", "profile_faults", "queued_words",
           "run", "share_text", "short_coverage", "state_key", "step_fault", "verdict", "write_outputs"]

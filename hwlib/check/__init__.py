"""Layer 3: bounded model checking - the model, the search, its runners, checkpoints and verdicts.

``explore`` searches one generation; ``check_all`` every generation asked, with checkpoints;
``verdicts`` turns results into the words, files and scenarios people read.
"""

from .. import compiled

compiled.extend(__path__, __name__)     # model and search are compiled

from .checkpoints import CheckDir, settings  # noqa: E402  (after the build is on the path)
from .model import Bounds, alphabet, enabled_steps, fingerprint, state_key  # noqa: E402
from .runners import explore  # noqa: E402
from .search import CheckResult, Search, Violation  # noqa: E402
from .verdicts import (  # noqa: E402
    Verdict,
    cell_verdict,
    check_all,
    counterexample,
    coverage_text,
    matrix_markdown,
    parse_protocols,
    short_coverage,
    verdict,
    write_outputs,
)
from .vocabulary import (  # noqa: E402
    DEFAULT_FAULTS,
    DEFAULT_KINDS,
    FAULT_WORDS,
    FAULTS,
    TLA_FAULTS,
    CheckError,
    parse_faults,
    parse_kinds,
    profile_faults,
    step_fault,
)

__all__ = ["DEFAULT_FAULTS", "DEFAULT_KINDS", "FAULTS", "FAULT_WORDS", "TLA_FAULTS", "Bounds", "CheckDir",
           "CheckError", "CheckResult", "Search", "Verdict", "Violation", "alphabet", "cell_verdict", "check_all",
           "counterexample", "coverage_text", "enabled_steps", "explore", "fingerprint", "matrix_markdown",
           "parse_faults", "parse_kinds", "parse_protocols", "profile_faults", "settings", "short_coverage",
           "state_key", "step_fault", "verdict", "write_outputs"]

"""The fault-sweep report - rendering, findings, statistics, figures, tables, stories, the model check."""

from .answer import ShortAnswer
from .document import PARAMETERS, ReportParameterError, parse_param, precheck, render, validate
from .findings import Finding, compute, findings_html
from .model_check import ProfileCheck, ReportConsistencyError
from .statistics import paired_test, runs_needed, wilson

__all__ = ["PARAMETERS", "Finding", "ProfileCheck", "ReportConsistencyError", "ReportParameterError", "compute",
           "findings_html", "paired_test", "parse_param", "precheck", "render", "runs_needed", "ShortAnswer",
           "validate", "wilson"]

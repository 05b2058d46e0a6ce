"""Explaining an incident's broker logs with the model: read, recognise, project, search, answer - the facade.

``explain(ExplainSpec(logs, ...))`` answers, per partition, with the shortest schedule of
hwlib's model (under a release's rules and settings) that explains the lines, or the line it
cannot - as values (``Answer``, ``ExplainRun``); their words and written forms are the views'
(``hwlib.views.explain_words``, ``hwlib.views.explain_out``); ``write_logs`` renders a run of
the model as a release's logs (the round trip's material, checked against Kafka's texts).
"""

from __future__ import annotations

from .. import compiled

compiled.extend(__path__, __name__)     # observations and search are compiled

from .answer import Answer, ExplainRun, LineVerdict
from .driver import explain
from .formats import FORMATS, Format, formats_for
from .read import LogInputError, Record, read_records
from .recognise import Line, assemble, recognise
from .spec import ExplainError, ExplainSpec, parse_brokers, parse_config
from .writer import Renaming, write_lines, write_logs

__all__ = ["FORMATS", "Answer", "ExplainError", "ExplainRun", "ExplainSpec", "Format", "Line", "LineVerdict",
           "LogInputError", "Record", "Renaming", "assemble", "explain", "formats_for", "parse_brokers", "parse_config",
           "read_records", "recognise", "write_lines", "write_logs"]

"""The commands of ``hwlib``, one module each: ``add_arguments``, its request (``to_spec``) and ``handle``.

``hwlib.cli`` builds the parser from ``COMMANDS`` in this order and dispatches to the module
named; it alone owns the exit-code contract (one line and exit 2 for bad input).
"""

from __future__ import annotations

#: command -> (module in this package, its one-line help), in ``hwlib --help``'s order
COMMANDS = {
    "run": ("run", "run a scenario and report the final state and anomalies"),
    "scenarios": ("scenarios", "list the built-in scenarios"),
    "protocols": ("protocols", "the protocol generations, what each changed and the releases on each"),
    "notebooks": ("notebooks", "copy hwlib's notebooks (explorer, anomaly gallery, model check, report) into a "
                               "folder to open in JupyterLab"),
    "releases": ("releases", "every Apache Kafka release 0.9 - 4.1 (ZooKeeper, KRaft): its rule set, flags and "
                             "where they were read"),
    "shrink": ("shrink", "shrink a scenario to a minimal one that still shows an anomaly"),
    "compare": ("compare", "run scenarios under every protocol, side by side"),
    "sweep": ("sweep", "fault-injection sweep on Spark: runs, summary, shrunk counterexamples"),
    "profiles": ("profiles", "the built-in fault profiles and the actions they mix"),
    "check": ("check", "exhaustive bounded model checking: verdicts, shortest counterexamples"),
    "explain": ("explain", "explain an incident's broker logs: the shortest schedule of the model that gives every "
                           "line, or the line it cannot"),
    "report": ("report", "run the fault-sweep report notebook and render it to offline HTML"),
}

"""Check specs written down: a YAML file, or a built-in one by name (``data/check-specs``), giving a check its bounds.

A spec file holds what the command line's options would: ``release`` or ``protocol``, the
bounds (``replicas``, ``max_records``, ``max_epoch``, ``max_ticks``, ``max_queued``, ``depth``,
``fault_budget``, ``max_alter_partitions``), ``faults``, ``kinds``, the settings
(``min_insync_replicas``, ``acks``, ``config``), and in words ``summary`` and ``source``. An
option given on the command line wins over the file's (``hwlib check --spec kip966-elr
--release 4.0``); the values are checked where the options' are (``CheckSpec``), each in one
line.
"""

from __future__ import annotations

from pathlib import Path

from ..model.vocabulary import CheckError
from ..util.paths import builtin_files
from ..util.yamlfile import read_yaml

#: the fields a check spec file may hold, each with the command-line option it stands for
FIELDS = {
    "release": "--release", "protocol": "--protocol", "replicas": "--replicas", "max_records": "--max-records",
    "max_epoch": "--max-epoch", "max_ticks": "--max-ticks", "max_queued": "--max-queued", "depth": "--depth",
    "fault_budget": "--fault-budget", "max_alter_partitions": "--max-alter-partitions", "faults": "--faults",
    "kinds": "--kinds", "min_insync_replicas": "--min-insync-replicas", "acks": "--acks", "config": "--config",
    "summary": "(words)", "source": "(words)",
}


def builtin_check_specs() -> dict[str, Path]:
    """The built-in check specs by name (the checkout's ``data/check-specs``, or the installed
    package's copy)."""
    return builtin_files("check-specs")


def load_check_spec(name_or_path: str) -> dict:
    """A built-in check spec by name or a YAML file, as its fields (``FIELDS``); CheckError
    names a missing file, an unknown field or one of the wrong shape."""
    text = str(name_or_path)
    path = builtin_check_specs().get(text) or Path(text)
    if not path.is_file():
        raise CheckError(f"spec: {text!r} is neither a built-in check spec nor a file; built-ins: "
                         f"{', '.join(builtin_check_specs()) or 'none'}")
    data = read_yaml(path, CheckError, "spec: ")
    if not isinstance(data, dict):
        raise CheckError(f"spec: {path}: expected a mapping of fields ({', '.join(FIELDS)})")
    unknown = [str(key) for key in data if key not in FIELDS]
    if unknown:
        raise CheckError(f"spec: {path}: unknown field {unknown[0]!r}; allowed: {', '.join(FIELDS)}")
    if "release" in data and "protocol" in data:
        raise CheckError(f"spec: {path}: give release or protocol, not both")
    for key in ("release", "protocol", "acks", "summary", "source"):
        if key in data and not isinstance(data[key], str):
            raise CheckError(f"spec: {path}: {key} must be text, got {data[key]!r}")
    for key in ("faults", "kinds"):
        if key in data and not (isinstance(data[key], str) or
                                (isinstance(data[key], list) and all(isinstance(v, str) for v in data[key]))):
            raise CheckError(f"spec: {path}: {key} must be a list of names, got {data[key]!r}")
    if "config" in data and not (isinstance(data["config"], dict)
                                 and all(isinstance(k, str) for k in data["config"])):
        raise CheckError(f"spec: {path}: config must be a mapping of Kafka's or hwlib's setting names to values")
    if "fault_budget" in data and not isinstance(data["fault_budget"], dict | str):
        raise CheckError(f"spec: {path}: fault_budget must map faults to counts, e.g. {{power_loss: 1}}")
    return data

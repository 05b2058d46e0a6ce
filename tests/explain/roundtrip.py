"""The round trip's helpers: the faults a built-in scenario's steps use, as the explain search names them."""

from __future__ import annotations

from collections.abc import Sequence

from hwlib.engine.steps import Step

#: a step kind -> the fault of the search's alphabet that makes it (None: no fault, or a client's
#: step no broker logs)
FAULT_OF = {"elect": "elect", "reconnect": "isolate", "deliver": "deliver", "shutdown": "controlled_shutdown",
            "replace_disk": "replace_disk", "flush": "flush", "tick": "tick",
            "controller_failover": "controller_failover", "retention": "retention", "delete_records": "retention"}


def faults_of(steps: Sequence[Step]) -> tuple[str, ...]:
    """The faults a schedule uses (always elect and crash: the first tier's), in the search's names."""
    out = ["elect", "crash"]
    for step in steps:
        if step.kind == "isolate":
            fault = "isolate" if step.detected else "isolate_unseen"
        elif step.kind == "crash":
            fault = {(False, True): "crash", (False, False): "quick_restart", (True, True): "power_loss",
                     (True, False): "power_loss_unseen"}[(step.lose_unflushed, step.detected)]
        else:
            fault = FAULT_OF.get(step.kind)
        if fault is not None and fault not in out:
            out.append(fault)
    return tuple(out)

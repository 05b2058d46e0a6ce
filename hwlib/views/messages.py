"""What crossed the network at each step (produce, fetch, OffsetsForLeaderEpoch, LeaderAndIsr, ISR writes, answers).

The engine records what changed (events), not the requests themselves; a request is implied
by its step (a ``fetch`` step sends a fetch) and its answer by the events that followed
(``fetch``: the leader's response, ``park``: the request waits in purgatory). Each message is
a dict, ready for JSON: ``sender`` and ``receiver`` (a broker id, ``producer``, ``consumer``
or ``controller``), ``kind`` (request, response, error, control), ``label`` (the numbers that
matter) and ``state``: delivered, in flight (its answer arrives at a later step), parked (in
the leader's purgatory) or lost.
"""

from __future__ import annotations

from ..engine.controller import BY_CONTROLLER
from ..run import RunResult

PRODUCER, CONSUMER, CONTROLLER = "producer", "consumer", "controller"


def _message(sender: str, receiver: str, kind: str, label: str, state: str = "delivered") -> dict:
    return {"sender": sender, "receiver": receiver, "kind": kind, "label": label, "state": state}


def _leader_and_isr(after: dict, text: str) -> list[dict]:
    """The controller's LeaderAndIsr to every broker it reaches (online, not cut off)."""
    return [_message(CONTROLLER, rid, "control", text) for rid, rep in after["replicas"].items()
            if rep["online"] and not rep["isolated"]]


def _fetch_request(protocol, replica: dict, offset: int) -> str:
    """A follower's fetch as Kafka's FetchRequest carries it: the fetch offset, from KIP-320
    (Kafka 2.1) the current leader epoch, from 2.7 (KIP-595's fetch) the last fetched epoch."""
    label = f"Fetch offset {offset}"
    if protocol.truncate_on_fetch:
        cache = replica["epoch_cache"]
        label += f" · last epoch {cache[-1][0] if cache else -1}"
    if protocol.fences_requests:
        label += f" · leader epoch {replica['known_epoch']}"
    return label


def _fetch(protocol, replica: dict, r: str, leader: str, offset: int, kinds: list[str]) -> dict:
    """The fetch request of a ``fetch`` or ``fetch_request`` step; parked when it waits in
    the leader's purgatory past the step."""
    parked = "park" in kinds and "expire" not in kinds and "fetch" not in kinds
    label = _fetch_request(protocol, replica, offset)
    return _message(r, leader, "request", label + (" · parked: nothing new yet" if parked else ""),
                    "parked" if parked else "delivered")


#: an election as a LeaderAndIsr arrow names it (``controller.ELECTIONS`` in full)
_ELECTED = {"isr": "from the ISR", "elr": "from the ELR", "last-known-leader": "last known leader",
            "unclean": "unclean", "controlled-shutdown": "controlled shutdown", "requested": "requested",
            "none": "none eligible"}


def step_messages(result: RunResult) -> list[list[dict]]:
    """Per trace position (0: before the first step, none), the messages of that step, in
    the order they were sent."""
    trace = result.recorded()
    protocol = result.config.rules()
    out: list[list[dict]] = [[]]
    answers: dict[str, str] = {}         # follower -> the fetch response it has not received yet
    for i in range(1, len(trace.snapshots)):
        step, events = trace.steps[i - 1], trace.events[i]
        before, after = trace.snapshots[i - 1], trace.snapshots[i]
        messages: list[dict] = []
        if events and events[0][0] == "skip":
            out.append(messages)
            continue
        kinds = [e[0] for e in events]
        leader = before["leader"] or after["leader"] or "?"
        r = step.replica
        if step.kind in ("fetch", "fetch_request", "fetch_response") and r is not None:
            # a follower fetches from the leader it knows of, which a cut-off broker may not
            # be the controller's (KAFKA-6880's zombie follower)
            leader = before["replicas"][r].get("known_leader") or leader
        fetcher = r if step.kind in ("fetch", "fetch_request") else None     # the follower that fetches
        offset = before["replicas"][r]["leo"] if r is not None else 0
        if step.kind == "produce":
            target = r if r is not None else leader
            messages.append(_message(PRODUCER, target, "request", f"Produce {step.value}"))
        elif step.kind == "retry":
            messages.append(_message(PRODUCER, leader, "request", "Produce (retry)"))
        elif fetcher is not None and "epoch_request" not in kinds and "diverging" not in kinds:
            messages.append(_fetch(protocol, before["replicas"][fetcher], fetcher, leader, offset, kinds))
        elif step.kind == "fetch_response" and r is not None and r in answers:
            messages.append(_message(leader, r, "response", answers.pop(r)))
        elif step.kind == "consume":
            messages.append(_message(CONSUMER, leader, "request", "Fetch (consumer)"))
        # a reconciling follower asks OffsetsForLeaderEpoch first, truncates, then fetches
        fetch_after_answer = fetcher is not None and "epoch_request" in kinds
        for event in events:
            kind = event[0]
            if fetch_after_answer and fetcher is not None and kind in ("park", "fetch", "out_of_range"):
                messages.append(_fetch(protocol, before["replicas"][fetcher], fetcher, leader, offset, kinds))
                fetch_after_answer = False
            if kind == "wake":
                messages.append(_message(leader, leader, "control", f"produce wakes {event[1]}'s parked fetch"))
            elif kind == "fetch":
                _, rid, offset, count, hw = event
                text = f"{count} record{'s' if count != 1 else ''} from {offset} · HW {hw}"
                in_flight = after["replicas"][rid]["in_flight"] == "fetch"
                if in_flight:
                    answers[rid] = text
                messages.append(_message(leader, rid, "response", text + (" · in flight" if in_flight else ""),
                                         "in flight" if in_flight else "delivered"))
            elif kind == "out_of_range":
                messages.append(_message(leader, event[1], "error", f"OFFSET_OUT_OF_RANGE (LEO {event[3]})"))
            elif kind == "refused":
                _, rid, by, code, epoch, _ = event
                messages.append(_message(by, rid, "error", f"{code} (request in epoch {epoch})"))
            elif kind == "truncate" and event[1] == r:
                offset = event[3]
            elif kind == "epoch_request":
                _, rid, epoch, answer = event
                messages.append(_message(rid, leader, "request", f"OffsetsForLeaderEpoch(epoch {epoch})"))
                messages.append(_message(leader, rid, "response", f"answer {answer}"))
            elif kind == "park" and fetcher is not None and "expire" in kinds:
                messages.append(_message(leader, leader, "control",
                                         f"{event[1]}'s fetch parked, then timed out (fetch.wait.max)"))
            elif kind == "diverging":
                _, rid, offset, last, answer = event
                messages.append(_message(rid, leader, "request", f"Fetch offset {offset} · last epoch {last}"))
                messages.append(_message(leader, rid, "response",
                                         f"diverging epoch {answer[0]}, end offset {answer[1]}"))
            elif kind == "fetcher_failed":
                _, rid, _, start, hw = event
                messages.append(_message(rid, rid, "error", f"leader's log start {start} above own HW {hw}: "
                                         "partition failed, fetching stops"))
            elif kind == "ack":
                messages.append(_message(leader, PRODUCER, "response", f"ack {event[1]} @ offset {event[2]}"))
            elif kind == "ack_lost":
                messages.append(_message(leader, PRODUCER, "response", f"ack {event[1]} @ offset {event[2]} · lost",
                                         "lost"))
            elif kind == "produce_error":
                messages.append(_message(r if step.kind == "produce" and r else leader, PRODUCER, "error",
                                         f"{event[1]}: {event[2]}"))
            elif kind == "consume":
                messages.append(_message(leader, CONSUMER, "response",
                                         f"offsets {event[1]}..{event[2] - 1}" if event[2] > event[1] else "nothing"))
            elif kind == "isr" and event[4] != BY_CONTROLLER:     # the leader's request, as the engine sent it
                messages.append(_message(leader, CONTROLLER, "control", f"{event[4]}: {{{','.join(event[2])}}}"))
            elif kind == "isr" and "leader" not in kinds:       # the controller shrinks the ISR itself
                messages += _leader_and_isr(after, f"LeaderAndIsr epoch {after['leader_epoch']} · "
                                                   f"ISR {{{','.join(event[2])}}}")
            elif kind == "isr_refused":
                messages.append(_message(event[1], CONTROLLER, "error",
                                         f"ISR write {{{','.join(event[3])}}} refused (stale epoch {event[2]})"))
            elif kind == "leader":
                old, new, epoch, election = event[1:5]
                how = f" ({_ELECTED[election]})" if election is not None else ""
                messages += _leader_and_isr(after, f"LeaderAndIsr epoch {epoch} · leader {new or 'none'}{how} · "
                                                   f"ISR {{{','.join(after['isr'])}}}")
            elif kind == "shutdown":                            # controlled shutdown: the broker asks first
                _, rid, granted, kraft = event
                request = "heartbeat: wantShutDown" if kraft else "ControlledShutdown"
                messages.append(_message(rid, CONTROLLER, "control", request if granted
                                         else f"{request} · cannot reach the controller", "delivered" if granted
                                         else "lost"))
            elif kind == "leader_and_isr_queued":
                _, rid, epoch, new = event
                messages.append(_message(CONTROLLER, rid, "control",
                                         f"LeaderAndIsr epoch {epoch} · held: {rid} is cut off", "lost"))
            elif kind == "leader_and_isr":
                _, rid, epoch, new = event
                messages.append(_message(CONTROLLER, rid, "control",
                                         f"LeaderAndIsr epoch {epoch} · leader {new or 'none'} (late)"))
        out.append(messages)
    return out

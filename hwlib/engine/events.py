"""Engine events: compact tuples recorded as the cluster changes, and their one-line descriptions."""

from __future__ import annotations

from collections.abc import Callable

from .controller import ELECTIONS

# Each event is a tuple whose first item is its kind:
#   ("append", replica, offset, epoch, value)        leader appended a produced record
#   ("replicate", replica, start, end)              follower appended fetched [start, end)
#   ("hw", replica, old, new, is_leader)            a replica's HW moved
#   ("truncate", replica, old_leo, new_leo, reason) records dropped from a log
#   ("truncate_noop", replica, leo, offset, reason) a truncation to an offset at or past the LEO: nothing dropped
#   ("halt", replica, leader_leo, leo)              Kafka <= 2.0.0: a follower's broker exits rather than truncate
#   ("isr", old, new, reason, route)                ISR changed (tuples of ids); route: how it reached the
#                                                   controller ("ISR write (ZooKeeper)", "AlterIsr",
#                                                   "AlterPartition", or "controller": its own change)
#   ("elr", old, new)                               kip966: Eligible Leader Replicas changed
#   ("leader", old, new, epoch, election)           controller wrote a new leader / epoch; election: how a
#                                                   new leader was chosen (controller.ELECTIONS), else None
#   ("ack", value, offset)                          producer got success for a record
#   ("produce_error", value, code)                  producer got an error
#   ("ack_lost", value, offset)                     the success answer never reached the producer
#   ("retry", value, attempt)                       the producer resends a batch
#   ("queued", value)                               max.in.flight reached: the batch waits
#   ("duplicate_seq", value, seq, offset)           idempotence: the leader already has it
#   ("park", replica, fetch_offset)                 an empty fetch waits in purgatory
#   ("wake", replica)                               a produce woke a parked fetch
#   ("expire", replica)                             a parked fetch's wait ran out
#   ("fetch", replica, fetch_offset, count, hw)     leader answered a fetch
#   ("out_of_range", replica, fetch_offset, leader_leo)
#   ("out_of_range_start", replica, fetch_offset, leader_start)  the fetch offset is below the leader's log start
#   ("out_of_range_hw", replica, fetch_offset, leader_hw, leader_start)  2.4.0: the leader's HW is below its log start
#   ("truncate_fully", replica, old_leo, offset)     the log restarts empty at offset (truncateFullyAndStartAt)
#   ("log_start", replica, old, new, reason)        a replica's log start offset moved (retention, DeleteRecords,
#                                                   the leader's log start in a fetch response)
#   ("epoch_request", replica, asked_epoch, answer) OffsetsForLeaderEpoch round trip
#   ("reconciled", replica, fetch_offset)           kip595: a fetch was accepted after a change
#   ("diverging", replica, fetch_offset, last_fetched_epoch, (epoch, end))  kip595 fetch answer
#   ("fetcher_failed", replica, fetch_offset, leader_start, hw)  its fetcher marked the partition failed: the
#                                                    leader's log start is above its HW (2.8.0, KAFKA-12996)
#   ("crash", replica, lost_records, detected)
#   ("shutdown", replica, granted, kraft)           the broker asks the controller to shut down (granted: it was heard)
#   ("stopped", replica)                            the broker's process ends cleanly: log flushed, HW checkpointed
#   ("restart", replica)
#   ("replace_disk", replica, lost_records)         the broker's disk was replaced: it restarts empty
#   ("detected", replica)                           session timeout: controller notices a crash
#   ("bounced", replica)                            controller notices a quick restart (>= 2.2)
#   ("isolate", replica, detected)                  controller can no longer reach the broker
#   ("reconnect", replica)                          ... and can again
#   ("leader_and_isr_queued", replica, epoch, leader)  the controller's request waits for an unreachable broker
#   ("leader_and_isr", replica, epoch, leader)      a broker applies a request that waited in its queue
#   ("leader_and_isr_stale", replica, epoch, known) a broker ignores a request not newer than what it knows
#   ("controller_failover", dropped)                a new controller: queued requests dropped
#   ("metadata_delta", replica, n, epoch)           KRaft: n queued partition changes in one delta (the last applies)
#   ("metadata", client, leader, epoch)             a client with stale metadata refreshed it
#   ("refused", replica, leader, code, epoch, leader_epoch)  a follower's request was refused
#   ("isr_refused", leader, epoch, new_isr, reason) a stale leader's ISR write was rejected
#   ("alter_isr_sent", leader, epoch, new_isr, reason, route)  kip595+: an AlterIsr / AlterPartition (route)
#                                                   waits for the controller
#   ("isr_ineligible", leader, new_isr, stale)      KIP-903: a member re-registered since; rejected
#   ("repeated", times, events)                     the events before it repeat this many more times
#   ("flush", replica, offset, hw)                  log and HW made durable
#   ("checkpoint", replica, hw)                     periodic HW checkpoint
#   ("consume", start, end)                         consumer read [start, end)
#   ("consumer_reset", old, new, policy)            OFFSET_OUT_OF_RANGE: auto.offset.reset
#   ("commit", offset)                              consumer committed its position
#   ("consumer_crash", position, committed)         consumer died; a new one resumes
#   ("skip", step_kind, replica, reason)            the step could not act
#   ("time", now)                                   logical clock after a tick

Event = tuple


def _span(start: int, end: int) -> str:
    return f"offset {start}" if end - start == 1 else f"offsets {start}..{end - 1}"


def _leader(old, new, epoch, election=None) -> str:
    if old == new:
        return f"leader {new} stays, epoch {epoch}"
    how = f" ({ELECTIONS[election]})" if election is not None else ""
    return f"leader {old or 'none'} -> {new or 'none'}, epoch {epoch}{how}"


def _crash(r, lost, detected) -> str:
    lost_text = f", loses {lost} unflushed record(s)" if lost else ""
    seen = "the controller notices" if detected else "unnoticed by the controller"
    return f"{r} crashes{lost_text} ({seen})"


_DESCRIBE: dict[str, Callable[..., str]] = {
    "append": lambda r, offset, epoch, value: f"{r} appends {value} at offset {offset} (epoch {epoch})",
    "replicate": lambda r, start, end: f"{r} appends {_span(start, end)}, LEO {end}",
    "hw": lambda r, old, new, is_leader: (f"partition HW {old} -> {new}" if is_leader
                                          else f"{r} HW {old} -> {new}"),
    "truncate": lambda r, old, new, reason: f"{r} truncates to {new} (LEO {old} -> {new}; {reason})",
    "truncate_noop": lambda r, leo, offset, reason: (f"{r} truncates to {offset}: nothing to drop (LEO {leo}; "
                                                     f"{reason})"),
    "halt": lambda r, leader_leo, leo: (f"{r}'s broker exits: \"Exiting because log truncation is not allowed\" - the "
                                        f"leader's latest offset {leader_leo} is below its own {leo} and unclean "
                                        "election is disabled (Kafka up to 2.0.0)"),
    "isr": lambda old, new, reason, route: f"ISR {{{','.join(old)}}} -> {{{','.join(new)}}} ({reason})",
    "elr": lambda old, new: f"ELR {{{','.join(old)}}} -> {{{','.join(new)}}}",
    "leader": _leader,
    "ack": lambda value, offset: f"producer: {value} at offset {offset} acknowledged",
    "produce_error": lambda value, code: f"producer: {value} failed with {code}",
    "ack_lost": lambda value, offset: f"the acknowledgement of {value} (offset {offset}) is lost",
    "retry": lambda value, attempt: f"producer resends {value} (attempt {attempt})",
    "queued": lambda value: f"producer holds {value}: max.in.flight reached",
    "duplicate_seq": lambda value, seq, offset: (f"leader already has {value} (sequence {seq}) at offset {offset}: "
                                                 "duplicate dropped"),
    "park": lambda r, offset: f"fetch from {r} at offset {offset} parks in purgatory",
    "wake": lambda r: f"produce wakes {r}'s parked fetch",
    "expire": lambda r: f"{r}'s parked fetch times out",
    "fetch": lambda r, offset, count, hw: f"leader answers {r}'s fetch at {offset}: {count} record(s), HW {hw}",
    "out_of_range": lambda r, offset, leo: (f"{r} fetch offset {offset} is beyond the leader's LEO {leo}: "
                                            "OFFSET_OUT_OF_RANGE"),
    "out_of_range_start": lambda r, offset, start: (
        f"{r} fetch offset {offset} is below the leader's log start {start}: OFFSET_OUT_OF_RANGE"),
    "out_of_range_hw": lambda r, offset, hw, start: (
        f"{r}'s fetch at {offset} fails: the leader's HW {hw} is below its log start {start}, so it cannot read its "
        "HW (OFFSET_OUT_OF_RANGE, KAFKA-9491)"),
    "truncate_fully": lambda r, old, offset: (f"{r} truncates fully and starts at the leader's log start {offset} "
                                              f"(LEO {old} -> {offset})"),
    "log_start": lambda r, old, new, reason: f"{r} log start {old} -> {new} ({reason})",
    "epoch_request": lambda r, epoch, answer: f"{r} asks OffsetsForLeaderEpoch({epoch}); leader answers {answer}",
    "diverging": lambda r, offset, last, answer: (f"{r} fetches at {offset} after epoch {last}; leader answers "
                                                 f"diverging epoch {answer[0]} ending at {answer[1]}"),
    "fetcher_failed": lambda r, offset, start, hw: (
        f"{r} cannot take the leader's log start {start}, above its HW {hw} (OffsetOutOfRangeException): its "
        f"fetcher marks the partition failed at offset {offset} and stops fetching it (KAFKA-12996)"),
    "reconciled": lambda r, offset: f"leader accepts {r}'s fetch at {offset}: its log matches, reconciled",
    "crash": _crash,
    "shutdown": lambda r, granted, kraft: (
        (f"{r} asks to shut down ({'its heartbeat: wantShutDown' if kraft else 'ControlledShutdown'}): the "
         "controller moves its leadership and takes it out of the ISR") if granted
        else (f"{r} asks to shut down but cannot reach the controller: after controlled.shutdown.max.retries it "
              "stops without a handover")),
    "stopped": lambda r: f"{r}'s broker stops cleanly: log flushed, HW checkpointed",
    "restart": lambda r: f"{r} restarts",
    "replace_disk": lambda r, lost: (f"{r}'s disk was replaced: it comes back with an empty log (its {lost} "
                                     "record(s) gone), no HW checkpoint and no leader-epoch cache"),
    "detected": lambda r: f"session timeout: the controller notices {r} is down",
    "bounced": lambda r: f"{r} re-registers: the controller handles its quick restart as a failure and a startup",
    "isolate": lambda r, detected: (f"the controller loses {r}: " + (
        "its session expires, so it is handled as failed and sent nothing" if detected
        else "its session holds; LeaderAndIsr requests to it will wait in its queue")),
    "reconnect": lambda r: f"{r} reaches the controller again",
    "leader_and_isr_queued": lambda r, epoch, leader: (f"LeaderAndIsr (epoch {epoch}, leader {leader or 'none'}) "
                                                       f"waits in the controller's queue for {r}"),
    "leader_and_isr": lambda r, epoch, leader: (f"{r} applies a queued LeaderAndIsr: epoch {epoch}, "
                                                f"leader {leader or 'none'}"),
    "leader_and_isr_stale": lambda r, epoch, known: (f"{r} ignores LeaderAndIsr epoch {epoch}: it already knows "
                                                     f"epoch {known}"),
    "metadata": lambda client, leader, epoch: (f"the {client} refreshes its metadata: leader {leader or 'none'}, "
                                               f"epoch {epoch}"),
    "metadata_delta": lambda r, n, epoch: (f"{r} replays {n} partition changes in one metadata delta: only the last "
                                           f"(epoch {epoch}) is applied"),
    "controller_failover": lambda dropped: (f"a new controller takes over: {dropped} queued LeaderAndIsr "
                                            "request(s) dropped; unreachable brokers will get the current state only"),
    "refused": lambda r, leader, code, epoch, leader_epoch: (f"{leader} refuses {r}'s request (epoch {epoch}): "
                                                             f"{code}" + ("" if code == "NOT_LEADER_OR_FOLLOWER"
                                                                          else f", it is in epoch {leader_epoch}")),
    "isr_refused": lambda leader, epoch, isr, reason: (f"{leader} (a stale leader, epoch {epoch}) cannot write ISR "
                                                       f"{{{','.join(isr)}}} ({reason}): rejected"),
    "alter_isr_sent": lambda leader, epoch, isr, reason, route: (f"{leader} sends {route} {{{','.join(isr)}}} "
                                                                 f"(epoch {epoch}; {reason}); it waits for the "
                                                                 "controller, which it cannot reach"),
    "isr_ineligible": lambda leader, isr, stale: (f"the controller rejects {leader}'s AlterPartition "
                                                  f"{{{','.join(isr)}}}: {','.join(stale)} is not live (fenced, down) "
                                                  "or re-registered since the leader saw it (INELIGIBLE_REPLICA: "
                                                  "KIP-841, KAFKA-14140, KIP-903)"),
    "repeated": lambda times, events: (f"... the {events} refused ISR write(s) above repeat {times:,} more times, "
                                       "at every ISR check of this tick"),
    "flush": lambda r, offset, hw: f"{r} flushes its log to offset {offset} and checkpoints HW {hw}",
    "checkpoint": lambda r, hw: f"{r} checkpoints HW {hw}",
    "consume": lambda start, end: f"consumer reads {_span(start, end)}" if end > start else "consumer reads nothing",
    "consumer_reset": lambda old, new, policy: (f"consumer position {old} is beyond the leader's log: "
                                                f"OFFSET_OUT_OF_RANGE, reset ({policy}) to {new}"),
    "commit": lambda offset: f"consumer commits offset {offset}",
    "consumer_crash": lambda position, committed: (f"consumer dies at position {position}; a new one resumes "
                                                   f"from the committed offset {committed}"),
    "skip": lambda step, r, reason: f"{step}{' ' + r if r else ''}: nothing happens ({reason})",
    "time": lambda now: f"time is now {now} ms",
}


def skip(events: list[Event], step: str, replica: str | None, reason: str) -> None:
    """A step that could not act says why."""
    events.append(("skip", step, replica, reason))


def describe(event: Event) -> str:
    """One line for an event, e.g. ``("truncate", "B", 2, 1, "truncate to HW")`` ->
    ``B truncates to 1 (LEO 2 -> 1; truncate to HW)``."""
    render = _DESCRIBE.get(event[0])
    return render(*event[1:]) if render else " ".join(str(x) for x in event)

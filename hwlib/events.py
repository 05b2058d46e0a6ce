"""Engine events: compact tuples recorded as the cluster changes, and their one-line descriptions."""

from __future__ import annotations

# Each event is a tuple whose first item is its kind:
#   ("append", replica, offset, epoch, value)        leader appended a produced record
#   ("replicate", replica, start, end)              follower appended fetched [start, end)
#   ("hw", replica, old, new, is_leader)            a replica's HW moved
#   ("truncate", replica, old_leo, new_leo, reason) records dropped from a log
#   ("isr", old, new, reason)                       ISR changed (tuples of ids)
#   ("leader", old, new, epoch)                     controller wrote a new leader / epoch
#   ("ack", value, offset)                          producer got success for a record
#   ("produce_error", value, code)                  producer got an error
#   ("park", replica, fetch_offset)                 an empty fetch waits in purgatory
#   ("wake", replica)                               a produce woke a parked fetch
#   ("expire", replica)                             a parked fetch's wait ran out
#   ("fetch", replica, fetch_offset, count, hw)     leader answered a fetch
#   ("out_of_range", replica, fetch_offset, leader_leo)
#   ("epoch_request", replica, asked_epoch, answer) OffsetsForLeaderEpoch round trip
#   ("crash", replica, lost_records, detected)
#   ("restart", replica)
#   ("detected", replica)                           session timeout: controller notices a crash
#   ("flush", replica, offset, hw)                  log and HW made durable
#   ("checkpoint", replica, hw)                     periodic HW checkpoint
#   ("consume", start, end)                         consumer read [start, end)
#   ("skip", step_kind, replica, reason)            the step could not act
#   ("time", now)                                   logical clock after a tick

Event = tuple


def describe(event: Event) -> str:
    kind = event[0]
    if kind == "append":
        _, r, offset, epoch, value = event
        return f"{r} appends {value} at offset {offset} (epoch {epoch})"
    if kind == "replicate":
        _, r, start, end = event
        span = f"offset {start}" if end - start == 1 else f"offsets {start}..{end - 1}"
        return f"{r} appends {span}, LEO {end}"
    if kind == "hw":
        _, r, old, new, is_leader = event
        return f"partition HW {old} -> {new}" if is_leader else f"{r} HW {old} -> {new}"
    if kind == "truncate":
        _, r, old, new, reason = event
        return f"{r} truncates to {new} (LEO {old} -> {new}; {reason})"
    if kind == "isr":
        _, old, new, reason = event
        return f"ISR {{{','.join(old)}}} -> {{{','.join(new)}}} ({reason})"
    if kind == "leader":
        _, old, new, epoch = event
        if old == new:
            return f"leader {new} stays, epoch -> {epoch}"
        return f"leader {old or 'none'} -> {new or 'none'}, epoch {epoch}"
    if kind == "ack":
        return f"producer: {event[1]} at offset {event[2]} acknowledged"
    if kind == "produce_error":
        return f"producer: {event[1]} failed with {event[2]}"
    if kind == "park":
        return f"fetch from {event[1]} at offset {event[2]} parks in purgatory"
    if kind == "wake":
        return f"produce wakes {event[1]}'s parked fetch"
    if kind == "expire":
        return f"{event[1]}'s parked fetch times out"
    if kind == "fetch":
        _, r, offset, count, hw = event
        return f"leader answers {r}'s fetch at {offset}: {count} record(s), HW {hw}"
    if kind == "out_of_range":
        _, r, offset, leo = event
        return f"{r} fetch offset {offset} is beyond the leader's LEO {leo}: OFFSET_OUT_OF_RANGE"
    if kind == "epoch_request":
        _, r, epoch, answer = event
        return f"{r} asks OffsetsForLeaderEpoch({epoch}); leader answers {answer}"
    if kind == "crash":
        _, r, lost, detected = event
        lost_text = f", loses {lost} unflushed record(s)" if lost else ""
        seen = "the controller notices" if detected else "unnoticed by the controller"
        return f"{r} crashes{lost_text} ({seen})"
    if kind == "restart":
        return f"{event[1]} restarts"
    if kind == "detected":
        return f"session timeout: the controller notices {event[1]} is down"
    if kind == "flush":
        return f"{event[1]} flushes its log to offset {event[2]} and checkpoints HW {event[3]}"
    if kind == "checkpoint":
        return f"{event[1]} checkpoints HW {event[2]}"
    if kind == "consume":
        _, start, end = event
        return f"consumer reads offsets {start}..{end - 1}" if end > start else "consumer reads nothing"
    if kind == "skip":
        _, step, r, reason = event
        return f"{step} {r or ''}: nothing happens ({reason})".replace("  ", " ")
    if kind == "time":
        return f"time is now {event[1]} ms"
    return " ".join(str(x) for x in event)

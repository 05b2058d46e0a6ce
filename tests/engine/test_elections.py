"""Each election labelled by how its leader was chosen (ISR, ELR, last known leader, unclean, shutdown, ...).

The kinds: ISR, ELR, last known leader, unclean, controlled shutdown, requested, none.

The label rides on the "leader" event (``controller.ELECTIONS``), reads in the run's text and the
stepper, and is listed in ``hwlib run --json``'s ``elections``; the trace hash leaves it out.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from hwlib.engine import Cluster, ClusterConfig
from hwlib.engine.controller import ELECTIONS, Controller
from hwlib.engine.events import describe
from hwlib.engine.steps import Step
from hwlib.run import run_steps


def elections(c: Cluster) -> list[tuple]:
    return [(e[1], e[2], e[4]) for e in c.events if e[0] == "leader" and e[1] != e[2]]


def produced(replicas=("A", "B", "C"), **kw) -> Cluster:
    c = Cluster(ClusterConfig(replicas=replicas, **kw))
    c.produce("m1")
    for r in replicas[1:]:
        c.fetch(r)
        c.fetch(r)
    return c


def test_a_failed_leader_is_replaced_from_the_isr():
    c = produced(protocol="kip320")
    c.crash("A")
    assert elections(c) == [("A", "B", "isr")]


def test_a_replica_outside_the_isr_is_elected_uncleanly():
    """0.10.2's OfflinePartitionLeaderSelector / Election.leaderForOffline with
    unclean.leader.election.enable: the first live replica when no ISR member lives."""
    c = Cluster(ClusterConfig(replicas=("A", "B"), protocol="kip320", unclean_leader_election=True, acks="1"))
    c.crash("B")                     # B leaves the ISR
    c.restart("B")                   # back, not caught up: outside the ISR
    c.crash("A")
    assert elections(c)[-1] == ("A", "B", "unclean")


def test_no_eligible_replica_leaves_the_partition_offline():
    c = Cluster(ClusterConfig(replicas=("A", "B"), protocol="kip320", acks="1"))
    c.crash("B")
    c.crash("A")
    assert elections(c) == [("A", None, "none")]


def test_kip966_elects_from_the_elr_and_then_the_last_known_leader():
    """KIP-966 (ReplicationControlManager / PartitionChangeBuilder.electLeader, 4.0+): a live
    ISR member, else a live ELR member, else the last known leader with ISR and ELR empty."""
    c = produced(replicas=("A", "B"), protocol="kip966", min_insync_replicas=2)
    c.crash("B")                     # B leaves the ISR below min ISR: into the ELR
    c.crash("A")                     # A too: ISR empty, ELR {A, B}
    c.restart("B")
    assert elections(c) == [("A", None, "none"), (None, "B", "elr")]

    # the last known leader, when ISR and ELR are both empty (the controller's own state: the
    # engine's ELR keeps every eligible member that leaves an ISR below min ISR, so a schedule
    # rarely empties both while the last leader stays eligible)
    ctl = Controller(("A", "B"), unclean_leader_election=False, elr=True, min_insync_replicas=2)
    ctl.isr, ctl.elr, ctl.last_known_leader, ctl.dead = (), (), "A", {"B"}
    assert ctl.elect_leader() == "A" and ctl.election == "last-known-leader"


@pytest.mark.parametrize("protocol", ["kip320", "kip841"])
def test_a_controlled_shutdown_moves_leadership_in_zookeeper_and_kraft(protocol):
    """ZooKeeper: KafkaController.doControlledShutdown (Election.leaderForControlledShutdown);
    KRaft: ReplicationControlManager.handleBrokerInControlledShutdown."""
    c = produced(protocol=protocol)
    c.shutdown("A")
    assert elections(c) == [("A", "B", "controlled-shutdown")]


def test_an_elect_step_is_a_requested_election_and_an_isr_shrink_elects_nobody():
    c = produced(protocol="kip320")
    c.crash("C")                     # the ISR shrinks: a leader write, no election
    c.elect("B")
    assert elections(c) == [("A", "B", "requested")]
    assert [e[4] for e in c.events if e[0] == "leader"] == [None, "requested"]


def test_the_label_reads_in_the_text_and_the_json_and_stays_out_of_the_hash():
    steps = [Step("produce", value="m1"), Step("fetch", replica="B"), Step("fetch", replica="B"),
             Step("crash", replica="A")]
    result = run_steps(ClusterConfig(replicas=("A", "B"), protocol="kip320"), steps)
    event = next(e for e in result.events if e[0] == "leader")
    assert describe(event) == "leader A -> B, epoch 1 (from the ISR)"
    assert result.to_json()["elections"] == [{"step": 4, "from": "A", "to": "B", "leader_epoch": 1,
                                              "election": "isr"}]
    # the same run with the label blanked hashes the same
    from hwlib.run import _hashed_events
    assert _hashed_events([("leader", "A", "B", 1, "isr")]) == _hashed_events([("leader", "A", "B", 1, None)])
    assert set(ELECTIONS) == {"isr", "elr", "last-known-leader", "unclean", "controlled-shutdown", "requested",
                              "none"}


def test_hwlib_run_json_lists_the_unclean_election():
    out = subprocess.run([sys.executable, "-m", "hwlib", "run", "consumer-unseen-after-unclean-election",
                          "--release", "2.8", "--json"], capture_output=True, text=True, check=True).stdout
    assert [e["election"] for e in json.loads(out)["elections"]] == ["unclean"]

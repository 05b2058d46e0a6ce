"""The messages a step sent (from its step and events), the records replicas lost, their drawing offline."""

from __future__ import annotations

from pathlib import Path

import hwlib
from hwlib.views.frames import frames
from hwlib.views.messages import step_messages
from hwlib.views.stepper import stepper_html

from ..helpers.browser import ARTIFACTS, offline_page


def arrows(result, i):
    return [(m["sender"], m["receiver"], m["kind"], m["state"], m["label"]) for m in step_messages(result)[i]]


def test_the_hw_reaches_the_follower_in_the_second_fetch_response():
    run = hwlib.run_scenario("hw-update-one-record", protocol="hw")
    assert arrows(run, 1) == [("producer", "A", "request", "delivered", "Produce m1")]
    assert ("B", "A", "request", "delivered", "Fetch offset 0") in arrows(run, 2)
    assert ("A", "B", "response", "delivered", "1 record from 0 · HW 0") in arrows(run, 2)
    third = arrows(run, 3)
    assert third[0] == ("B", "A", "request", "delivered", "Fetch offset 1")      # tells A B's LEO 1
    assert ("A", "producer", "response", "delivered", "ack m1 @ offset 0") in third
    assert third[-1] == ("A", "B", "response", "delivered", "0 records from 1 · HW 1")  # carries HW 1 back


def test_a_controlled_shutdown_asks_the_controller_first():
    """ZooKeeper: a ControlledShutdown request, then the controller's LeaderAndIsr; KRaft: the
    heartbeat asks; a broker cut off from the controller asks in vain."""
    steps = [hwlib.Step("fetch", replica="B"), hwlib.Step("shutdown", replica="A")]
    for release, request in (("2.1", "ControlledShutdown"), ("3.7-kraft", "heartbeat: wantShutDown")):
        shown = arrows(hwlib.run_steps(hwlib.ClusterConfig(replicas=("A", "B"), release=release), steps), 2)
        assert shown[0] == ("A", "controller", "control", "delivered", request), release
        assert any(a[0] == "controller" and "leader B" in a[4] for a in shown), release
    cut = [hwlib.Step("isolate", replica="A", detected=False), hwlib.Step("shutdown", replica="A")]
    shown = arrows(hwlib.run_steps(hwlib.ClusterConfig(replicas=("A", "B"), release="2.1"), cut), 2)
    assert shown[0] == ("A", "controller", "control", "lost", "ControlledShutdown · cannot reach the controller")


def test_the_isr_write_is_named_as_the_release_sends_it_and_the_election_by_its_kind():
    """A follower caught up joins the ISR: written to ZooKeeper by the leader up to 2.6 (and at
    2.7 below IBP 2.7-IV2), AlterIsr from 2.7 (KIP-497), AlterPartition from 3.2 and under KRaft
    (3.2.0's AlterPartitionRequest.json); a failed leader's successor is labelled by how it was
    chosen."""
    steps = [hwlib.Step("crash", replica="B", detected=True), hwlib.Step("restart", replica="B"),
             hwlib.Step("produce", value="m1"), hwlib.Step("fetch", replica="B"), hwlib.Step("fetch", replica="B"),
             hwlib.Step("crash", replica="A")]
    for release, write in (("2.6", "ISR write (ZooKeeper)"), ("2.7", "AlterIsr"), ("3.1", "AlterIsr"),
                           ("3.2-zk", "AlterPartition"), ("3.7-kraft", "AlterPartition")):
        run = hwlib.run_steps(hwlib.ClusterConfig(replicas=("A", "B"), release=release), steps)
        labels = [m["label"] for step in step_messages(run) for m in step]
        assert any(label == f"{write}: {{A,B}}" for label in labels), (release, labels)
        assert any("leader B (from the ISR)" in label for label in labels), (release, labels)


def test_the_isr_route_is_the_engine_s_the_message_view_only_reads_it():
    """The route is on the engine's ISR event (the request the release sends, or the
    controller's own change), and the view names what the event says: under 2.7 a shrink the
    leader sends is AlterIsr, so is a join, a failed broker's removal the controller's own (no leader's
    request drawn for it), and a route written on the event is the label drawn."""
    config = hwlib.ClusterConfig(replicas=("A", "B", "C"), release="2.7")
    steps = [hwlib.Step("produce", value="m1"), hwlib.Step("tick", ms=46000), hwlib.Step("fetch", replica="B"),
             hwlib.Step("fetch", replica="B"),
             hwlib.Step("crash", replica="B", detected=True)]
    run = hwlib.run_steps(config, steps)
    routes = [(e[2], e[4]) for step in run.trace.events for e in step if e[0] == "isr"]
    assert routes == [(("A",), "AlterIsr"), (("A", "B"), "AlterIsr"), (("A",), "controller")], routes
    labels = [m["label"] for step in step_messages(run) for m in step if m["receiver"] == "controller"]
    assert labels == ["AlterIsr: {A}", "AlterIsr: {A,B}"], labels
    for step in run.trace.events:          # the view reads the route, whatever the rules
        step[:] = [e[:4] + ("a route of the test",) if e[0] == "isr" and e[4] != "controller" else e for e in step]
    labels = [m["label"] for step in step_messages(run) for m in step if m["receiver"] == "controller"]
    assert labels == ["a route of the test: {A}", "a route of the test: {A,B}"], labels


def test_a_parked_fetch_woken_by_a_produce_answers_in_flight_then_arrives():
    run = hwlib.run_scenario("data-loss", protocol="hw")
    assert arrows(run, 3)[0] == ("B", "A", "request", "parked", "Fetch offset 1 · parked: nothing new yet")
    fourth = arrows(run, 4)
    assert ("A", "A", "control", "delivered", "produce wakes B's parked fetch") in fourth
    assert ("A", "B", "response", "in flight", "1 record from 1 · HW 1 · in flight") in fourth
    assert arrows(run, 5) == [("A", "B", "response", "delivered", "1 record from 1 · HW 1")]
    assert ("controller", "B", "control", "delivered",
            "LeaderAndIsr epoch 1 · leader B (from the ISR) · ISR {B}") in arrows(run, 11)


def test_requests_carry_what_each_generation_adds():
    kip320 = hwlib.run_scenario("data-loss", protocol="kip320")
    assert arrows(kip320, 2)[0][4] == "Fetch offset 0 · leader epoch 0"          # KIP-320: current leader epoch
    kip595 = hwlib.run_scenario("divergence", protocol="kip595")
    assert arrows(kip595, 3)[0][4] == "Fetch offset 1 · last epoch 0 · leader epoch 0"
    assert ("B", "A", "response", "delivered", "diverging epoch 0, end offset 1") in arrows(kip595, 15)
    kip101 = hwlib.run_scenario("data-loss", protocol="kip101")
    assert arrows(kip101, 13)[:2] == [("A", "B", "request", "delivered", "OffsetsForLeaderEpoch(epoch 0)"),
                                      ("B", "A", "response", "delivered", "answer 2")]


def test_a_follower_fetches_from_the_leader_it_knows_even_when_the_controller_moved_on():
    """KAFKA-6880's zombie follower: B, cut off, still fetches from A although the controller
    made C leader; the request goes to A and A's refusal comes back from A."""
    zombie = hwlib.run_scenario("kafka-6880-zombie-follower", protocol="kip279")
    assert zombie.trace.snapshots[15]["leader"] == "C"
    assert arrows(zombie, 16) == [("B", "A", "request", "delivered", "Fetch offset 2"),
                                  ("A", "B", "error", "delivered", "NOT_LEADER_OR_FOLLOWER (request in epoch 0)")]


def test_a_truncated_record_stays_as_a_ghost_and_an_acknowledged_one_missing_is_lost():
    run = frames(hwlib.run_scenario("data-loss", protocol="hw"))
    assert run[9]["ghosts"]["B"] == [] and run[9]["lost"] == []
    assert run[10]["ghosts"]["B"] == [{"offset": 1, "epoch": 0, "value": "m2", "step": 10, "how": "truncated"}]
    assert run[11]["lost"] == ["m2"] and run[15]["ghosts"]["B"][0]["step"] == 10
    assert "leo" in run[10]["changed"]["replicas"]["B"] and run[11]["changed"]["partition"] == ["leader", "epoch",
                                                                                                   "isr", "hw"]


def test_the_offline_stepper_draws_the_messages_the_losses_and_opens_where_asked(browser, tmp_path):
    one = stepper_html(hwlib.run_scenario("hw-update-one-record", protocol="hw"), start=0)
    loss = stepper_html([hwlib.run_scenario("data-loss", protocol="hw"),
                         hwlib.run_scenario("data-loss", protocol="kip101")], start=0)
    page_file = Path(tmp_path) / "steppers.html"
    page_file.write_text(f"<!doctype html><meta charset=utf-8><title>steppers</title>{one}{loss}", encoding="utf-8")
    page = offline_page(browser, page_file.as_uri())
    first, second = page.locator(".hwl-stepper").nth(0), page.locator(".hwl-stepper").nth(1)
    assert first.get_attribute("data-position") == "0"
    for _ in range(3):
        first.locator("button.fwd").click()
    response = first.locator('.frame-slot g.msg[data-kind="response"][data-from="A"][data-to="B"]')
    assert response.count() == 1 and "HW 1" in response.get_attribute("data-label")
    first.locator("button.back").click()
    assert first.locator('.frame-slot g.msg[data-kind="request"][data-from="B"][data-to="A"]').count() == 1
    assert first.locator("svg.sequence g.band.now").get_attribute("data-step") == "2"
    second.locator("input.pos").fill("3")
    parked = second.locator('.panel').first.locator('.frame-slot g.msg[data-state="parked"]')
    assert parked.count() == 1 and parked.locator("rect").count() == 1       # the purgatory box
    second.locator('button.jump[data-key="anomaly"]').click()
    assert second.get_attribute("data-position") == "10"
    second.locator("button.fwd").click()                                # step 11: A dies, B leads without m2
    hw_panel = second.locator(".panel").first
    assert hw_panel.locator("td.rec.lost").inner_text() == "m2 lost"
    assert hw_panel.locator('.replica[data-replica="B"] .ghost[data-value="m2"]').count() == 1
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    second.screenshot(path=str(ARTIFACTS / "stepper-loss-step.png"))
    stepper_id = second.get_attribute("id")
    linked = offline_page(browser, f"{page_file.as_uri()}#{stepper_id}/step=12")
    assert linked.locator(f"#{stepper_id}").get_attribute("data-position") == "12"
    assert linked.locator(".hwl-stepper").nth(0).get_attribute("data-position") == "0"
    assert page.errors == [] and linked.errors == [] and page.requests_outside == []


def test_a_scenarios_notes_are_captions_under_their_generation(tmp_path):
    from hwlib.views.stepper import compare_view

    page = compare_view("data-loss", ["hw", "kip101"])._repr_html_()
    assert "truncates its log to its own HW 1: m2, acknowledged, is gone from B" in page       # hw's step 10
    assert "asks the leader OffsetsForLeaderEpoch before truncating anything" in page          # kip101's
    scenario = hwlib.load_scenario("stuck-follower")
    assert "KAFKA-7152" in scenario.captions("kip320")[4] and "KAFKA-7152" not in scenario.captions("hw")[4]
    assert hwlib.load_scenario(scenario.save(tmp_path / "again.yaml")).notes == scenario.notes


def test_every_scenario_in_the_gallery_has_captions_at_its_key_steps(repo):
    """The gallery's steppers explain themselves: each scenario it shows carries ``notes:``,
    at least one of which names a KIP or a JIRA issue, or a Kafka setting."""
    import json
    import re

    cells = json.loads((repo / "notebooks" / "02_anomaly_gallery.ipynb").read_text())["cells"]
    code = "".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    names = set(re.findall(r"(?:compare_view\(|\(\s*)'([a-z0-9-]+)'", code)) & set(hwlib.builtin_scenarios())
    assert len(names) >= 14
    for name in sorted(names):
        notes = hwlib.load_scenario(name).notes
        assert notes, name
        texts = " ".join(n if isinstance(n, str) else " ".join(n.values()) for n in notes.values())
        assert re.search(r"KIP-\d+|KAFKA-\d+|Kafka [0-9.]+|\b[a-z]+(\.[a-z]+)+\b", texts), name

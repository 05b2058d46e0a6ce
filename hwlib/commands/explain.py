"""``hwlib explain``: an incident's logs read and explained per partition (text, JSON, ``--out`` files, ``--html``).

The exit status says the verdict: 0 explained, 3 not explainable, 4 outside the model, 5
inconclusive. A LOG is a file, a glob pattern (quoted: expanded here) or ``-`` (standard input).
"""

from __future__ import annotations

import argparse
import json
import sys

from . import options


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("logs", nargs="*", metavar="LOG", help="server.log, state-change.log, controller.log "
                        "excerpts, as pasted (any layout, prefixes, CSV or JSON exports); a glob pattern; - reads "
                        "standard input (a paste)")
    parser.add_argument("--partition", metavar="TOPIC-N", help="the partition to explain (default: every one named)")
    options.rules(parser, "the release the brokers ran, VERSION[-zk|-kraft] (default: inferred from the lines' "
                          "texts)")
    parser.add_argument("--observations", action="append", default=[], metavar="FILE.yaml",
                        help="facts stated in hwlib's vocabulary (kinds as --emit-observations writes them), read "
                             "beside the logs; repeatable")
    parser.add_argument("--emit-observations", metavar="FILE.yaml",
                        help="write what the lines were understood to say, in the form --observations reads")
    parser.add_argument("--broker", action="append", default=[], metavar="FILE=ID",
                        help="the broker that wrote a file, where its lines do not say; repeatable")
    parser.add_argument("--config", action="append", default=[], metavar="KEY=VALUE",
                        help="a setting the logs cannot show, fixed instead of searched: acks, min.insync.replicas, "
                             "unclean.leader.election.enable; repeatable")
    parser.add_argument("--max-records", type=options.positive, default=None,
                        help="records the model produces, at most (default: the lines' distinct offsets + 2, at "
                             "least 3)")
    parser.add_argument("--max-epoch", type=options.positive, default=None,
                        help="the leader epoch's bound (default: the lines' distinct epochs + 2, at least 4)")
    parser.add_argument("--max-silent", type=int, default=6, help="steps no line shows, in a row, at most (6)")
    parser.add_argument("--depth", type=options.positive, default=30, help="steps in an explanation, at most (30)")
    parser.add_argument("--time-limit", type=float, default=60.0, metavar="S", help="seconds to search, at most (60)")
    parser.add_argument("--replicas", type=int, help="replicas in the model, 1 to 5 (default: the brokers the lines "
                        "name, at least 2; one broker named with an ISR of it alone: 1 first)")
    parser.add_argument("--skew", type=float, default=0.0, metavar="MS",
                        help="lines of different files stamped less than this apart may come in either order (0)")
    parser.add_argument("--out", metavar="DIR", help="write answer.json and explanation.yaml (or prefix.yaml) here")
    parser.add_argument("--html", metavar="FILE", help="write the answer as an offline page: the lines beside the "
                                                       "explanation's stepper")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr")


def to_spec(args: argparse.Namespace, logs: tuple[str, ...]):
    """The explain request of ``logs`` (the LOG arguments, globs expanded, standard input as a file)."""
    from ..explain import ExplainSpec, parse_brokers, parse_config

    return ExplainSpec(logs, observations=tuple(args.observations), emit_observations=args.emit_observations,
                       partition=args.partition, release=args.release, protocol=args.protocol,
                       brokers=parse_brokers(args.broker), config=parse_config(args.config),
                       max_records=args.max_records, max_epoch=args.max_epoch, max_silent=args.max_silent,
                       depth=args.depth, time_limit=args.time_limit, replicas=args.replicas, skew_ms=args.skew)


def handle(args: argparse.Namespace) -> int:
    from ..explain.inputs import named_logs

    with named_logs(args.logs) as logs:
        return _explain(args, to_spec(args, logs))


def _explain(args: argparse.Namespace, spec) -> int:
    from ..explain import explain
    from ..explain.read import check_input
    from ..util.files import check_directory
    from ..views.explain_out import run_dict, write_out
    from ..views.incident import incident_target, write_incident_page
    from ..views.text import explain_text

    for path in spec.logs + spec.observations:
        check_input(path)                      # every file readable before anything runs
    if args.out is not None:
        check_directory(args.out, "out")
    if args.html is not None:
        incident_target(args.html)

    def say(text: str) -> None:
        if not args.quiet:
            print(f"hwlib explain: {text}", file=sys.stderr, flush=True)

    run = explain(spec, progress=say)
    if args.out is not None:
        say("wrote " + ", ".join(str(p) for p in write_out(run, args.out)))
    if args.html is not None:
        say(f"wrote {write_incident_page(run, args.html)}")
    if args.json:
        print(json.dumps(run_dict(run), indent=1, default=str))
    else:
        print(explain_text(run))
    return run.exit_code

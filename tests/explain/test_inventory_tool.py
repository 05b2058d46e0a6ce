"""The Kafka log-call inventory tool (tools/kafka_log_inventory.py) reading made-up Scala and Java snippets."""

from __future__ import annotations

import importlib.util
import string
import sys
import textwrap
from pathlib import Path
from types import ModuleType

import pytest

TOOL = Path(__file__).resolve().parents[2] / "tools" / "kafka_log_inventory.py"


def _load() -> ModuleType:
    spec = importlib.util.spec_from_file_location("kafka_log_inventory", TOOL)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["kafka_log_inventory"] = module
    spec.loader.exec_module(module)
    return module


inv = _load()

SCALA = "core/src/main/scala/kafka/demo/Demo.scala"
JAVA = "metadata/src/main/java/org/apache/kafka/demo/Demo.java"


def scan(files: dict[str, str]) -> list:
    """Every observation of the given files (all inventoried)."""
    parsed = {path: inv.SourceFile(path, text) for path, text in files.items()}
    tree = inv.Tree(parsed, sorted(parsed))
    return sorted(inv.observe(tree), key=lambda ob: (ob.file, ob.template, ob.logger))


def one(files: dict[str, str], needle: str):
    found = [ob for ob in scan(files) if needle in ob.template]
    assert len(found) == 1, [ob.template for ob in scan(files)]
    return found[0]


def templates(text: str, path: str = SCALA) -> list[str]:
    return [ob.template for ob in scan({path: text})]


def scala_class(body: str, header: str = "class Demo(topicPartition: String, brokerId: Int) extends Logging") -> str:
    return f"package kafka.demo\n\nimport kafka.utils.Logging\n\n{header} {{\n{body}\n}}\n"


# --- message templates: Scala ---------------------------------------------------------------

def test_scala_interpolation_simple_and_braced() -> None:
    src = scala_class('  def truncate(targetOffset: Long): Unit = {\n'
                      '    info(s"Truncating to offset $targetOffset for ${replica.brokerId} now")\n  }')
    assert templates(src) == ["Truncating to offset {targetOffset} for {replica.brokerId} now"]


def test_scala_format_and_concatenation_precedence() -> None:
    src = scala_class('  def halt(): Unit = {\n'
                      '    fatal("Halting for topic %s,".format(tp.topic) +\n'
                      '      " leader %d\'s offset %d is behind".format(leaderId, offset))\n  }')
    assert templates(src) == ["Halting for topic {tp.topic}, leader {leaderId}'s offset {offset} is behind"]


def test_scala_parenthesised_format_string_and_percent_escapes() -> None:
    src = scala_class('  def f(): Unit = trace(("Sent %d of %s " +\n  "(100%% done)%n").format(n, what))')
    assert templates(src) == ["Sent {n} of {what} (100% done)\\n"]


def test_arithmetic_before_the_first_string_is_one_value() -> None:
    src = scala_class('  def f(): Unit = debug(end - 1 + " is the last offset of " + name)')
    assert templates(src) == ["{end - 1} is the last offset of {name}"]


def test_message_that_is_only_an_expression_and_trailing_throwable() -> None:
    src = scala_class('  def f(): Unit = {\n    error(msg, e)\n    info(e.getMessage)\n'
                      '    warn(s"Failed on $tp", t)\n  }')
    assert sorted(templates(src)) == ["Failed on {tp}", "{e.getMessage}", "{msg}"]


def test_literal_braces_are_doubled_and_escapes_decoded() -> None:
    src = scala_class('  def f(): Unit = info("Map {a=1} said \\"hi\\"\\nbye")')
    [template] = templates(src)
    assert template == 'Map {{a=1}} said "hi"\\nbye'
    parsed = list(string.Formatter().parse(template))
    assert all(field is None for _, field, _, _ in parsed)
    assert "".join(literal for literal, _, _, _ in parsed) == 'Map {a=1} said "hi"\\nbye'


def test_multiline_call_with_parens_and_quotes_inside_strings() -> None:
    src = scala_class('  def f(): Unit = {\n    warn(\n      s"Odd (value) \\"$x\\" " +\n'
                      '        "and a ) in text" +\n      s" ${f(g(1), "(")}"\n    )\n  }')
    assert templates(src) == ['Odd (value) "{x}" and a ) in text {f(g(1), "(")}']


def test_triple_quoted_interpolation_with_braces_in_the_expression() -> None:
    src = scala_class('  def f(): Unit =\n'
                      '    info(s"""Replicas ${ids.map { id => s"<$id>" }.mkString(",")} are "in" sync""")')
    [template] = templates(src)
    assert template == 'Replicas {ids.map ( id => s"<$id>" ).mkString(",")} are "in" sync'
    fields = [p[1] for p in string.Formatter().parse(template) if p[1]]
    assert fields == ['ids.map ( id => s"<$id>" ).mkString(",")']


def test_strip_margin() -> None:
    src = scala_class('  def f(): Unit = info(s"""first $a\n          |second line""".stripMargin)')
    assert templates(src) == ["first {a}\\nsecond line"]


def test_reserved_characters_inside_fields_keep_the_template_readable() -> None:
    src = scala_class('  def f(): Unit = info(s"Moved: ${if (a != b) x else y} (${z: Any})")')
    [template] = templates(src)
    parsed = list(string.Formatter().parse(template))
    assert [p[1] for p in parsed if p[1]] == ["if (a \u00ac= b) x else y", "z\u2236 Any"]
    assert parsed[0][0] == "Moved: "


def test_f_interpolator_drops_format_specs() -> None:
    src = scala_class('  def f(): Unit = debug(f"Lag $lag%5d ms and $ratio%.2f")')
    assert templates(src) == ["Lag {lag} ms and {ratio}"]


def test_raw_interpolator_keeps_backslashes() -> None:
    src = scala_class('  def f(): Unit = debug(raw"Path C:\\dir\\$name")')
    assert templates(src) == ["Path C:\\dir\\{name}"]


def test_unclosed_call_is_emitted_unparsed() -> None:
    src = "package kafka.demo\nclass Demo extends Logging {\n  def f(): Unit = info(s\"never closed $x\"\n"
    [template] = templates(src)
    assert template.startswith("UNPARSED")
    list(string.Formatter().parse(template))


# --- message templates: Java ------------------------------------------------------------------

JAVA_HEAD = ("package org.apache.kafka.demo;\n\nimport org.slf4j.Logger;\nimport org.slf4j.LoggerFactory;\n\n"
             "public class Demo {\n    private static final Logger log = LoggerFactory.getLogger(Demo.class);\n")


def java_class(body: str) -> str:
    return JAVA_HEAD + body + "\n}\n"


def test_java_slf4j_anchors_and_trailing_exception() -> None:
    src = java_class('    void f(long offset, String tp, Exception e) {\n'
                     '        log.info("Truncating to {} for {}", offset, tp);\n'
                     '        log.error("Failed {} ", tp, e);\n    }')
    assert sorted(templates(src, JAVA)) == ["Failed {tp} ", "Truncating to {offset} for {tp}"]


def test_java_concatenation_inside_the_format_and_string_format() -> None:
    src = java_class('    void f() {\n        log.warn("Broker " + id + " has {} (" + "x" + ")", count);\n'
                     '        throw new IllegalStateException(String.format("Epoch %d < %s", epoch, last));\n    }')
    assert sorted(templates(src, JAVA)) == ["Broker {id} has {count} (x)", "Epoch {epoch} < {last}"]


def test_java_ternary_and_literal_braces() -> None:
    src = java_class('    void f() {\n        log.debug("Set {} {x}", flag ? "on" : "off");\n    }')
    [template] = templates(src, JAVA)
    assert template == 'Set {flag ? "on" \u2236 "off"} {{x}}'
    list(string.Formatter().parse(template))


# --- throws -----------------------------------------------------------------------------------

def test_throw_rows_name_the_exception_and_skip_message_less_throws() -> None:
    src = scala_class('  def f(): Unit = {\n'
                      '    throw new kafka.common.NotLeaderException(s"Not leader for $tp", cause)\n'
                      '    throw new IllegalStateException()\n    sys.error(s"Missing $tp")\n  }')
    obs = scan({SCALA: src})
    assert [(ob.level, ob.logger, ob.template, ob.kind) for ob in obs] == [
        ("THROW", "RuntimeException", "Missing {tp}", "throw"),
        ("THROW", "NotLeaderException", "Not leader for {tp}", "throw"),
    ]
    assert all(ob.ident == "" for ob in obs)


# --- exceptions made with a message, thrown later or not at all ------------------------------------

def rows_of(files: dict[str, str]) -> list[dict[str, str]]:
    """The CSV rows the given files make as one release."""
    seen: dict = {}
    parsed = {path: inv.SourceFile(path, text) for path, text in files.items()}
    inv.collect(inv.observe(inv.Tree(parsed, sorted(parsed))), 0, seen)
    return inv.build_rows(seen, ["1.0"])


def test_scala_exception_created_not_thrown_is_a_throw_row_its_message_followed_through_a_local() -> None:
    src = scala_class(textwrap.dedent('''\
          def elect(partitions: Seq[String]): Unit = {
            partitions.foreach { partition =>
              val failMsg = s"Failed to elect leader for partition $partition under strategy $strategy"
              failedElections.put(partition, Left(new kafka.common.StateChangeFailedException(failMsg)))
            }
            val exception = new StateChangeFailedException(s"LeaderAndIsr information doesn't exist for $tp")
            failedElections.put(tp, Left(exception))
            logFailedStateChange(tp, new StateChangeFailedException(failMsg))
            callback(Failure(new KafkaException(e)))
            callback(Failure(new KafkaStorageException(s"$why")))
            respond(new ApiError(Errors.INVALID_REQUEST, "Bad request"))
            val handler = new ExceptionHandler("not an exception")
            val plain = new Thing("not an exception either")
          }'''))
    obs = scan({SCALA: src})
    assert [(ob.level, ob.logger, ob.template, ob.kind, ob.ident, ob.function) for ob in obs] == [
        ("THROW", "StateChangeFailedException",
         "Failed to elect leader for partition {partition} under strategy {strategy}", "throw", "", "elect"),
        ("THROW", "StateChangeFailedException", "LeaderAndIsr information doesn't exist for {tp}", "throw", "",
         "elect"),
    ]


def test_a_message_both_thrown_and_created_in_a_class_is_one_row() -> None:
    src = scala_class(textwrap.dedent('''\
          def check(tp: String): Unit = {
            if (gone) throw new NotLeaderException(s"Not leader for $tp")
            else callback(Left(new NotLeaderException(s"Not leader for $tp")))
          }
          def later(tp: String): Exception = new NotLeaderException(s"Not leader for $tp")'''))
    assert len([ob for ob in scan({SCALA: src}) if ob.template == "Not leader for {tp}"]) == 3
    rows = rows_of({SCALA: src})
    assert [(r["level"], r["logger"], r["template"], r["kind"], r["function"]) for r in rows] == [
        ("THROW", "NotLeaderException", "Not leader for {tp}", "throw", "check|later")]


def test_java_exception_completed_exceptionally_returned_or_held_in_a_local() -> None:
    src = java_class(textwrap.dedent('''\
            CompletableFuture<Void> stop(int epoch) {
                CompletableFuture<Void> future = new CompletableFuture<>();
                future.completeExceptionally(new NotControllerException("No controller appears to be active."));
                String msg = String.format("Epoch %d is stale", epoch);
                queue.fail(new StaleBrokerEpochException(msg));
                future.completeExceptionally(new org.apache.kafka.common.errors.TimeoutException(reason));
                return future;
            }
            private static RuntimeException overflow(long offset) {
                return new IndexOffsetOverflowException("Integer overflow for offset: " + offset);
            }
            void fail() {
                throw new IllegalStateException("Thrown as before");
            }'''))
    obs = scan({JAVA: src})
    assert [(ob.level, ob.logger, ob.template, ob.function) for ob in obs] == [
        ("THROW", "StaleBrokerEpochException", "Epoch {epoch} is stale", "stop"),
        ("THROW", "IndexOffsetOverflowException", "Integer overflow for offset: {offset}", "overflow"),
        ("THROW", "NotControllerException", "No controller appears to be active.", "stop"),
        ("THROW", "IllegalStateException", "Thrown as before", "fail"),
    ]


ERRORS = textwrap.dedent("""\
    package org.apache.kafka.common.protocol;

    public enum Errors {
        NONE(0, null, message -> null),
        NOT_LEADER_OR_FOLLOWER(6, "This server is not the leader " +
                "for that topic-partition.",
            NotLeaderOrFollowerException::new),
        NOT_LEADER_FOR_PARTITION(6, "This server is not the leader for that topic-partition.",
            new ApiExceptionBuilder() {
                @Override
                public ApiException build(String message) {
                    return new NotLeaderForPartitionException(message);
                }
            }),
        OFFSET_NOT_AVAILABLE(78, "The leader high watermark has not caught up.",
            OffsetNotAvailableException::new);

        public ApiException exception(String message) {
            throw new IllegalStateException("not read: a support file's own calls are no rows");
        }
    }
    """)


def test_errors_exception_names_the_class_the_release_s_errors_file_gives() -> None:
    src = scala_class(textwrap.dedent('''\
          def fetch(tp: String): Unit = {
            val failure = Errors.OFFSET_NOT_AVAILABLE.exception(s"Failed to fetch offsets for partition $tp")
            if (old) throw Errors.NOT_LEADER_FOR_PARTITION.exception(s"Leader not local for $tp")
            if (odd) throw Errors.NOT_LEADER_OR_FOLLOWER.exception(message)
            callback(Errors.UNKNOWN_SERVER_ERROR.exception("Something unexpected"))
            callback(Errors.NONE.exception("Nothing"))
            callback(Errors.NOT_LEADER_OR_FOLLOWER.exception(message))
            callback(Errors.NOT_LEADER_OR_FOLLOWER.exception())
          }'''))
    errors = "clients/src/main/java/org/apache/kafka/common/protocol/Errors.java"
    assert inv.wanted(errors, set()) == "support"
    parsed = {SCALA: inv.SourceFile(SCALA, src), errors: inv.SourceFile(errors, ERRORS)}
    obs = sorted(inv.observe(inv.Tree(parsed, [SCALA])), key=lambda ob: ob.template)
    assert [(ob.level, ob.logger, ob.template, ob.kind) for ob in obs] == [
        ("THROW", "OffsetNotAvailableException", "Failed to fetch offsets for partition {tp}", "throw"),
        ("THROW", "NotLeaderForPartitionException", "Leader not local for {tp}", "throw"),
        ("THROW", "ApiException", "Nothing", "throw"),
        ("THROW", "ApiException", "Something unexpected", "throw"),
        ("THROW", "NotLeaderOrFollowerException", "{message}", "throw"),       # thrown: kept unread
    ]
    # without the release's Errors.java: ApiException
    assert {ob.logger for ob in scan({SCALA: src})} == {"ApiException"}


# --- loggers, classes, functions ------------------------------------------------------------------

def test_scala_logger_class_function_and_ident() -> None:
    src = scala_class('  this.logIdent = s"[Demo $topicPartition broker=$brokerId] "\n'
                      '  def shrink(): Unit = {\n    info("Shrinking")\n  }\n'
                      '  def longSignature(a: Int,\n                    b: Int):\n    Map[Int, Int] = {\n'
                      '    debug("Long")\n    Map.empty\n  }')
    obs = {ob.template: ob for ob in scan({SCALA: src})}
    assert obs["Shrinking"].logger == "kafka.demo.Demo" and obs["Shrinking"].cls == "kafka.demo.Demo"
    assert obs["Shrinking"].function == "shrink"
    assert obs["Long"].function == "longSignature"
    assert obs["Shrinking"].ident == "[Demo {topicPartition} broker={brokerId}] "
    assert obs["Shrinking"].level == "INFO" and obs["Long"].level == "DEBUG"


def test_companion_object_nested_class_and_trait_logger() -> None:
    src = ('package kafka.demo\n\nobject Demo extends Logging {\n  def load(): Unit = info("Loading")\n}\n\n'
           'class Demo extends Logging {\n  this.logIdent = "[Demo] "\n'
           '  class Listener {\n    def fire(): Unit = warn("Fired")\n  }\n'
           '  class Handler extends Logging {\n    def run(): Unit = error("Handled")\n  }\n'
           '  def raw(): Unit = logger.info("No ident")\n}\n')
    obs = {ob.template: ob for ob in scan({SCALA: src})}
    assert (obs["Loading"].logger, obs["Loading"].ident) == ("kafka.demo.Demo", "")
    assert (obs["Fired"].logger, obs["Fired"].cls, obs["Fired"].ident) == (
        "kafka.demo.Demo", "kafka.demo.Demo$Listener", "[Demo] ")
    assert (obs["Handled"].logger, obs["Handled"].ident) == ("kafka.demo.Demo$Handler", "")
    assert (obs["No ident"].logger, obs["No ident"].ident) == ("kafka.demo.Demo", "")


def test_abstract_class_logs_under_each_concrete_subclass_with_its_ident() -> None:
    base = ('package kafka.demo\n\nabstract class Fetcher(name: String) extends Logging {\n'
            '  def doWork(): Unit = info(s"Fetching $name")\n}\n')
    subs = ('package kafka.demo\n\nclass LeaderFetcher(id: Int) extends Fetcher("leader") {\n'
            '  this.logIdent = s"[LeaderFetcher id=$id] "\n}\n\n'
            'class DirFetcher(id: Int) extends Fetcher("dir") {\n  this.logIdent = "[DirFetcher] "\n}\n')
    obs = scan({"core/src/main/scala/kafka/demo/Fetcher.scala": base,
                "core/src/main/scala/kafka/demo/Fetchers.scala": subs})
    assert sorted((ob.logger, ob.ident, ob.cls) for ob in obs) == [
        ("kafka.demo.DirFetcher", "[DirFetcher] ", "kafka.demo.Fetcher"),
        ("kafka.demo.LeaderFetcher", "[LeaderFetcher id={id}] ", "kafka.demo.Fetcher"),
    ]


def test_inherited_ident_with_constructor_argument_followed_to_the_call_site() -> None:
    thread = ('package kafka.demo\n\nabstract class LoopThread(val name: String) extends Thread(name) with Logging {\n'
              '  this.logIdent = "[" + name + "], "\n}\n')
    worker = ('package kafka.demo\n\nclass Worker(name: String, n: Int) extends LoopThread(name) {\n'
              '  def work(): Unit = trace("Working")\n}\n\n'
              'class WorkerManager(prefix: Option[String]) extends Logging {\n'
              '  def create(id: Int, broker: Broker): Worker = {\n'
              '    val threadName = prefix match {\n      case None => "Worker-%d-%d".format(id, broker.id)\n'
              '      case Some(p) => "%s:Worker-%d".format(p, id)\n    }\n'
              '    new Worker(threadName, id)\n  }\n}\n')
    ob = one({"core/src/main/scala/kafka/demo/LoopThread.scala": thread,
              "core/src/main/scala/kafka/demo/Worker.scala": worker}, "Working")
    assert (ob.logger, ob.ident) == ("kafka.demo.Worker", "[Worker-{id}-{broker.id}], ")


def test_ident_from_a_log_context_val_and_a_prefix_parameter() -> None:
    fetcher = ('package kafka.demo\n\nclass Fetcher(name: String, logPrefix: String) extends Logging {\n'
               '  this.logIdent = logPrefix\n  def go(): Unit = info("Going")\n}\n')
    manager = ('package kafka.demo\n\nclass Manager(config: Config) extends Logging {\n'
               '  private val logContext = new LogContext(s"[Manager id=${config.id}] ")\n'
               '  this.logIdent = logContext.logPrefix\n  def stop(): Unit = info("Stopping")\n'
               '  def create(fetcherId: Int): Fetcher = {\n'
               '    val context = new LogContext(s"[Fetch replicaId=${config.id}, " +\n'
               '      s"fetcherId=$fetcherId] ")\n'
               '    new Fetcher("f", context.logPrefix)\n  }\n}\n')
    files = {"core/src/main/scala/kafka/demo/Fetcher.scala": fetcher,
             "core/src/main/scala/kafka/demo/Manager.scala": manager}
    assert one(files, "Going").ident == "[Fetch replicaId={config.id}, fetcherId={fetcherId}] "
    assert one(files, "Stopping").ident == "[Manager id={config.id}] "


def test_state_change_logger_ident_as_its_class_builds_it() -> None:
    logger_src = textwrap.dedent("""\
        package kafka.demo

        object StateChangeLogger {
          private val logger = Logger("state.change.logger")
        }

        class StateChangeLogger(brokerId: Int, inControllerContext: Boolean, controllerEpoch: Option[Int])
            extends Logging {
          locally {
            val prefix = if (inControllerContext) "Ctl" else "Brk"
            val epochEntry = controllerEpoch.fold("")(epoch => s" epoch=$epoch")
            logIdent = s"[$prefix id=$brokerId$epochEntry] "
          }
          def withControllerEpoch(controllerEpoch: Int): StateChangeLogger =
            new StateChangeLogger(brokerId, inControllerContext, Some(controllerEpoch))
        }
        """)
    user_src = textwrap.dedent("""\
        package kafka.demo

        class Machine(config: Config, stateChangeLogger: StateChangeLogger) extends Logging {
          def move(epoch: Int): Unit = {
            val log = stateChangeLogger.withControllerEpoch(epoch)
            log.trace(s"Moved $p")
          }
        }

        class Controller(config: Config) extends Logging {
          private val stateChangeLogger =
            new StateChangeLogger(config.brokerId, inControllerContext = true, None)
          val machine = new Machine(config, stateChangeLogger)
          def elect(): Unit = stateChangeLogger.info("Elected")
        }

        class Broker(localBrokerId: Int) extends Logging {
          private val stateChangeLogger = new StateChangeLogger(localBrokerId, inControllerContext = false, None)
          def follow(): Unit = stateChangeLogger.warn("Following")
        }
        """)
    files = {"core/src/main/scala/kafka/demo/StateChangeLogger.scala": logger_src,
             "core/src/main/scala/kafka/demo/Machine.scala": user_src}
    moved = one(files, "Moved")
    assert (moved.logger, moved.ident) == ("state.change.logger", "[Ctl id={config.brokerId} epoch={epoch}] ")
    assert one(files, "Elected").ident == "[Ctl id={config.brokerId}] "
    assert one(files, "Following").ident == "[Brk id={localBrokerId}] "


def test_java_loggers_and_log_context_idents() -> None:
    named = ('package org.apache.kafka.demo;\n\npublic class Named {\n'
             '    private static final Logger LOG = LoggerFactory.getLogger("demo.named");\n'
             '    public Named() {\n        LOG.info("Made");\n    }\n}\n')
    cache = ('package org.apache.kafka.demo;\n\npublic class Cache {\n    private final Logger log;\n'
             '    public Cache(String tp) {\n        LogContext logContext = new LogContext("[Cache " + tp + "] ");\n'
             '        log = logContext.logger(Cache.class);\n    }\n'
             '    void put(int epoch) {\n        log.debug("Appended {}", epoch);\n    }\n}\n')
    obs = {ob.template: ob for ob in scan({"storage/src/main/java/org/apache/kafka/demo/Named.java": named,
                                           "storage/src/main/java/org/apache/kafka/demo/Cache.java": cache})}
    assert (obs["Made"].logger, obs["Made"].function, obs["Made"].ident) == ("demo.named", "<init>", "")
    assert (obs["Appended {epoch}"].logger, obs["Appended {epoch}"].ident) == (
        "org.apache.kafka.demo.Cache", "[Cache {tp}] ")
    assert obs["Appended {epoch}"].function == "put"


def test_java_log_context_from_the_creator_and_logger_parameter_from_the_caller() -> None:
    control = textwrap.dedent("""\
        package org.apache.kafka.demo;

        public class Control {
            static class Builder {
                private LogContext logContext = null;
                Builder setLogContext(LogContext logContext) {
                    this.logContext = logContext;
                    return this;
                }
                Control build() {
                    if (logContext == null) logContext = new LogContext();
                    return new Control(logContext);
                }
            }
            private final Logger log;
            private Control(LogContext logContext) {
                this.log = logContext.logger(Control.class);
            }
            void replay(Registration r, Registration prev) {
                r.maybeLog(log, "p0", prev);
                log.info("Replayed {}", r);
            }
        }
        """)
    owner = textwrap.dedent("""\
        package org.apache.kafka.demo;

        public class Owner {
            Owner(int nodeId) {
                LogContext logContext = new LogContext(String.format("[Owner id=%d] ", nodeId));
                this.control = new Control.Builder().setLogContext(logContext).build();
            }
        }
        """)
    registration = textwrap.dedent("""\
        package org.apache.kafka.demo;

        public class Registration {
            public void maybeLog(Logger log, String description, Registration prev) {
                log.info("UNSAFE change for {}: {}", description, diff(prev));
            }
        }
        """)
    files = {"metadata/src/main/java/org/apache/kafka/demo/Control.java": control,
             "metadata/src/main/java/org/apache/kafka/demo/Owner.java": owner,
             "metadata/src/main/java/org/apache/kafka/demo/Registration.java": registration}
    replayed = one(files, "Replayed")
    assert (replayed.logger, replayed.ident) == ("org.apache.kafka.demo.Control", "[Owner id={nodeId}] ")
    unsafe = one(files, "UNSAFE")
    assert unsafe.template == "UNSAFE change for {description}: {diff(prev)}"
    assert (unsafe.logger, unsafe.cls, unsafe.ident) == (
        "org.apache.kafka.demo.Control", "org.apache.kafka.demo.Registration", "[Owner id={nodeId}] ")


def test_lexer_keeps_comments_and_char_literals_out_of_calls() -> None:
    src = scala_class('  // info("commented out")\n  /* warn("block /* nested */ comment") */\n'
                      "  def f(c: Char): Unit = if (c == '\"') debug(\"Quote seen\")")
    assert templates(src) == ["Quote seen"]


def test_level_named_methods_on_other_objects_are_not_logging() -> None:
    src = scala_class('  def f(apiError: ApiError): Unit = {\n    val e = apiError.error()\n    info("Real")\n  }')
    assert templates(src) == ["Real"]


# --- rows -------------------------------------------------------------------------------------

def test_rows_merge_contiguous_releases_and_split_on_gaps_and_ident_changes() -> None:
    seen: dict = {}

    def ob(template: str, ident: str = "") -> object:
        return inv.Observation(template, "INFO", "k.L", "k.L", ident, "f", "core/L.scala", "log")

    inv.collect([ob("a"), ob("b")], 0, seen)
    inv.collect([ob("a"), ob("b", "[x] ")], 1, seen)
    inv.collect([ob("b", "[x] ")], 2, seen)
    inv.collect([ob("a"), ob("b", "[x] ")], 3, seen)
    rows = inv.build_rows(seen, ["1.0", "1.1", "2.0", "trunk"])
    got = sorted((r["template"], r["ident"], r["first"], r["last"]) for r in rows)
    assert got == [("a", "", "1.0", "1.1"), ("a", "", "trunk", "trunk"),
                   ("b", "", "1.0", "1.0"), ("b", "[x] ", "1.1", "trunk")]
    assert list(rows[0]) + list(inv.KEPT_COLUMNS) == list(inv.CSV_COLUMNS)


def test_a_run_carries_each_row_s_disposition_over_and_counts_the_rows_without_one(tmp_path) -> None:
    """The disposition and note a person gave a call survive the CSV being made again (matched
    by level, logger, class and template, whatever its releases); a new call has none."""
    old = tmp_path / "calls.csv"
    row = {"level": "INFO", "logger": "k.L", "class": "k.L", "function": "f", "template": "a", "ident": "",
           "first": "1.0", "last": "1.1", "file": "core/L.scala", "kind": "log", "disposition": "ignored",
           "note": "said once"}
    inv.write_csv(old, [row])
    fresh = [{k: v for k, v in row.items() if k not in inv.KEPT_COLUMNS} for _ in range(2)]
    fresh[0]["last"], fresh[1]["template"] = "2.0", "b"
    assert inv.carry_over(old, fresh) == 1
    assert [(r["template"], r["disposition"], r["note"]) for r in fresh] == [("a", "ignored", "said once"),
                                                                              ("b", "", "")]


@pytest.mark.parametrize("pieces,expected", [
    ([inv.Piece("a {b} "), inv.Piece("x.y", True)], "a {{b}} {x.y}"),
    ([inv.Piece("m.get(k) match { case _ => 1 }", True)], "{m.get(k) match ( case _ => 1 )}"),
])
def test_render_always_reads_with_str_format(pieces: list, expected: str) -> None:
    rendered = inv.render(pieces)
    assert rendered == expected
    list(string.Formatter().parse(rendered))


def test_message_naming_a_string_constant_and_joined_lines() -> None:
    broker = textwrap.dedent("""\
        package kafka.demo

        object Broker {
          val STARTED_MESSAGE = "Demo Server started"
          val TEMPLATE = s"not plain $x"
        }
        """)
    server = textwrap.dedent('''\
        package kafka.demo

        class Server extends Logging {
          def startup(): Unit = {
            info(Broker.STARTED_MESSAGE)
            info(Broker.TEMPLATE)
            info(s"""Resending with
                    |epoch: $epoch""".stripMargin.linesIterator.mkString(" ").trim)
          }
        }
        ''')
    got = sorted(ob.template for ob in scan({"core/src/main/scala/kafka/demo/Broker.scala": broker,
                                             "core/src/main/scala/kafka/demo/Server.scala": server}))
    assert got == ["Demo Server started", "Resending with epoch: {epoch}", "{Broker.TEMPLATE}"]


# --- a message held in a local ------------------------------------------------------------------

def test_scala_message_held_in_a_local_val_is_read_from_its_declaration() -> None:
    src = scala_class(textwrap.dedent('''\
          def move(tp: String, plan: String): Unit = {
            pending.foreach { item =>
              val problem = s"Could not move $tp under plan $plan" +
                " (will retry)"
              warn(problem)
              throw new MoveFailedException(problem)
            }
            if (late) {
              val detail = "late by one"
              trace(detail)
            } else {
              val detail = s"early by $n"
              trace(detail)
            }
            var changing = "first"
            changing = "second"
            debug(changing)
            error(fromElsewhere)
          }'''))
    obs = scan({SCALA: src})
    assert sorted((ob.level, ob.logger, ob.template) for ob in obs) == [
        ("DEBUG", "kafka.demo.Demo", "{changing}"),
        ("ERROR", "kafka.demo.Demo", "{fromElsewhere}"),
        ("THROW", "MoveFailedException", "Could not move {tp} under plan {plan} (will retry)"),
        ("TRACE", "kafka.demo.Demo", "early by {n}"),
        ("TRACE", "kafka.demo.Demo", "late by one"),
        ("WARN", "kafka.demo.Demo", "Could not move {tp} under plan {plan} (will retry)"),
    ]


def test_scala_local_of_another_case_or_function_is_not_used() -> None:
    src = scala_class(textwrap.dedent('''\
          def pick(k: Int): Unit = {
            k match {
              case 1 =>
                val note = "picked one"
                info(note)
              case _ =>
                info(note)
            }
          }
          def other(): Unit = info(note)'''))
    assert sorted(templates(src)) == ["picked one", "{note}", "{note}"]


def test_java_message_held_in_a_local_string() -> None:
    src = java_class(textwrap.dedent('''\
            void check(int epoch, int last, Exception e) {
                String msg = String.format("Epoch %d is older than %d", epoch, last);
                final String gone = "Epoch " + epoch + " is gone";
                log.warn(msg, e);
                log.info(gone);
                throw new StaleEpochException(msg);
            }
            void later() {
                String reassigned;
                reassigned = "set later";
                log.info(reassigned);
                log.info(msg);
            }'''))
    obs = scan({JAVA: src})
    assert sorted((ob.level, ob.template) for ob in obs) == [
        ("INFO", "Epoch {epoch} is gone"), ("INFO", "{msg}"), ("INFO", "{reassigned}"),
        ("THROW", "Epoch {epoch} is older than {last}"), ("WARN", "Epoch {epoch} is older than {last}"),
    ]
    assert {ob.logger for ob in obs if ob.level != "THROW"} == {"org.apache.kafka.demo.Demo"}


# --- more classes: logger names, exception messages ---------------------------------------------------

def test_an_overridden_logger_name_names_the_logger() -> None:
    src = textwrap.dedent('''\
        package kafka.demo

        class Tidy(config: Config) extends Logging {
          def start(): Unit = info("Starting the tidier")
          private class TidyThread(n: Int) extends Logging {
            protected override def loggerName = classOf[Tidy].getName
            def run(): Unit = debug("Tidying")
          }
        }

        private[demo] class Sweeper(val id: Int) extends Logging {
          protected override def loggerName: String = classOf[Tidy].getName
          this.logIdent = s"Sweeper $id: "
          def sweep(): Unit = info("Swept")
        }

        abstract class Shelf(val file: File) extends Logging {
          def drop(): Unit = info(s"Dropping shelf ${file.getAbsolutePath}")
        }
        class TopShelf(f: File) extends Shelf(f)
        object Shelf extends Logging {
          override val loggerName: String = "demo.shelves"
          def load(): Unit = warn("Loaded")
        }
        ''')
    obs = {ob.template: ob for ob in scan({SCALA: src})}
    assert obs["Starting the tidier"].logger == "kafka.demo.Tidy"
    assert (obs["Tidying"].logger, obs["Tidying"].cls) == ("kafka.demo.Tidy", "kafka.demo.Tidy$TidyThread")
    assert (obs["Swept"].logger, obs["Swept"].ident) == ("kafka.demo.Tidy", "Sweeper {id}: ")
    assert obs["Dropping shelf {file.getAbsolutePath}"].logger == "kafka.demo.TopShelf"
    assert obs["Loaded"].logger == "demo.shelves"


def test_throw_without_arguments_ends_at_the_line_and_a_later_message_parameter_is_the_message() -> None:
    src = textwrap.dedent('''\
        package kafka.demo

        class SweepException(val shelf: Shelf, private val message: String, cause: Throwable)
          extends KafkaException(message, cause)

        class Sweeper extends Logging {
          private def checkDone(tp: String): Unit = {
            if (!running)
              throw new StopNowException
            manager.checkAborted(tp)
          }
          def sweep(shelf: Shelf): Unit = {
            try shelf.sweep()
            catch {
              case e: Exception => throw new SweepException(shelf, s"Sweep of ${shelf.name} failed", e)
            }
          }
        }
        ''')
    obs = scan({SCALA: src})
    assert [(ob.logger, ob.template) for ob in obs] == [("SweepException", "Sweep of {shelf.name} failed")]


@pytest.mark.parametrize("path", [
    "core/src/main/scala/kafka/log/LogCleaner.scala",
    "core/src/main/scala/kafka/log/LogCleanerManager.scala",
    "storage/src/main/java/org/apache/kafka/storage/internals/log/Cleaner.java",
    "storage/src/main/java/org/apache/kafka/storage/internals/log/ProducerStateManager.java",
    "core/src/main/scala/kafka/log/AbstractIndex.scala",
    "storage/src/main/java/org/apache/kafka/storage/internals/log/LazyIndex.java",
    "core/src/main/scala/kafka/server/KafkaApis.scala",
])
def test_compaction_producer_state_index_and_request_handler_files_are_inventoried(path: str) -> None:
    assert inv.wanted(path, set()) == "inventory"

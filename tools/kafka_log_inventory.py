"""Inventory Kafka's replication-path logging calls and exception messages per release, from Kafka's source.

Usage::

    python tools/kafka_log_inventory.py --kafka /work/.mirror/apache+kafka/repo \
        --out data/explain/kafka-log-calls.csv [--releases 2.8.0,3.9.0] [--tree LABEL=DIR ...]

Each release's tree is read straight from the bare git directory (``git ls-tree``, ``git grep``,
``git cat-file --batch``; nothing is checked out). The files of the replication classes
(``CLASS_FILES``: replicas, fetchers, logs and segments, their indexes, producer state, log
compaction (``LogCleaner``, ``LogCleanerManager``, ``Cleaner``), the controllers and ``KafkaApis``,
wherever each file lives at a release) and of every class writing to ``state.change.logger`` are
lexed as Scala or Java (comments, plain / triple-quoted / ``s`` ``f`` ``raw`` interpolated strings
with nested ``${...}``, Java text blocks). Each logging call (``info(...)``, ``logger.warn(...)``,
``stateChangeLogger.withControllerEpoch(e).trace(...)``, ``log.debug("... {}", x)``), each
``throw new X(<message>)``, each ``new XException(<message>)`` / ``new XError(<message>)`` not thrown
on the spot whose message is read (``Left(new StateChangeFailedException(failMsg))``,
``future.completeExceptionally(new X(".."))``: it reaches a log with its stack trace later) and each
``[throw] Errors.SOME_ERROR.exception(<message>)`` is one observation; observations with the same
(template, level, logger, class, ident) over a contiguous run of releases make one CSV row
(``level,logger,class,function,template,ident,first,last,file,kind``). A change of ident starts a
new row; ``function`` and ``file`` are those at ``last`` (several functions joined with ``|``).

Templates: literal text verbatim (``\\"`` decoded, ``\\n`` kept as the two characters, a line
break of a triple-quoted string written ``\\n``), each value ``{expr}`` with the expression's
source text, whitespace collapsed; ``"..." + x``, ``"..%d..".format(a)``, ``String.format``, slf4j
``{}`` arguments and ``stripMargin`` resolved; a trailing Throwable argument left out; a message
that only names a plain string constant (``KafkaBroker.STARTED_MESSAGE``) is its text; a message
that is only the name of a local - declared (Scala ``val``/``var``, Java ``[final] T x``) earlier in
the same function, in a block that holds the call, with a string expression read as above, and not
assigned again - is that expression's template (``val failMsg = s"..."; throw new X(failMsg)``,
``String msg = String.format(..); log.info(msg)``). A brace in Kafka's text is doubled. Inside a
field the characters ``str.format`` reserves are replaced - ``{`` -> ``(``, ``}`` -> ``)``, ``!``
-> ``¬``, ``:`` -> ``∶`` (U+2236) - so every template reads with ``string.Formatter().parse`` and
each field is the whole expression. A call whose message
could not be read is still written, its template ``UNPARSED (<why>): <raw source>``.

Levels are as the call is written. Note: from 1.1.0 Kafka's Scala ``Logging.fatal`` logs at log4j
ERROR (with a FATAL marker); before 1.1.0 at log4j FATAL. The CSV keeps FATAL - the reader maps it.

Loggers and idents (best effort, from the source alone):
  * Scala ``Logging``: the logger is the class's name (``getClass.getName``; an object without
    ``$``, a nested class ``Outer$Inner``) - or the class's (or a parent's) ``override
    loggerName = classOf[X].getName`` (the log cleaner's classes log as ``kafka.log.LogCleaner``);
    for an abstract class or trait, one row per concrete subclass among the scanned files (the
    runtime class). The ident is the class's ``logIdent = ...``, else its parent's (the parent's
    constructor parameters bound to the ``extends`` arguments). A constructor parameter in it is
    followed to the ``new C(...)`` call sites among the scanned files, a ``val`` to its definition,
    ``new LogContext(x).logPrefix`` to ``x``; a value is put in only when it is text (else the
    field keeps its name). An ``Option`` the source does not give (``threadNamePrefix match
    {case None => ..}``, ``.getOrElse(d)``) is read as ``None``, the broker's default.
  * ``logger.info(...)`` on the ``Logging`` trait's own logger: no ident.
  * ``state.change.logger``: the ident is built as the release's ``StateChangeLogger`` builds it
    (``[Controller id={..} epoch={..}] `` / ``[Broker id={..}] ``, the creator's expressions put
    in), the logger's creation followed through vals, parameters and call sites; before 1.0 none.
  * Java (and Scala using slf4j): ``LoggerFactory.getLogger(X.class)`` / ``getLogger("name")`` /
    ``ctx.logger(X.class)``; the ident from that ``LogContext``, or - when the class gets its
    ``LogContext`` from outside - from the first ``new LogContext(..)`` of the scanned file that
    constructs the class; a ``Logger`` passed as a parameter is followed to its callers (one row
    per distinct caller logger).
  * ``throw`` (thrown or only created; kind ``throw`` either way, one row when both): level THROW,
    logger the exception's simple class name, no ident (Scala's ``sys.error(msg)`` is a
    ``RuntimeException``; ``Errors.X.exception(msg)`` the class the release's ``Errors.java``
    (read as a support file) gives X, else ``ApiException``). The message is the first argument,
    except for a Scala exception class of the scanned files whose ``message: String`` parameter
    comes later (``LogCleaningException(log, message, cause)``). An exception only created is kept
    when its message reads as text with some literal words (not ``new KafkaException(e)``, not a
    helper's ``{msg}`` parameter); ``new ApiError(..)`` / ``new RecordError(..)`` are no exceptions.
The last two columns, ``disposition`` and ``note``, are hwlib's reading of each row, kept by hand
(``hwlib/explain/inventory.py`` says what they may be): a run carries them over from the CSV it
replaces, matched by level, logger, class and template, and says how many new rows still need one.

Not followed: ``swallow*`` helpers, ``Errors.X.exception()`` with no message (the error's default
one), ``error.exception(msg)`` on a value, an exception class made without ``new`` (a Scala
case class's ``X(msg)``), messages built in other files' helpers, a message passed to a helper
that logs or throws it (``logFailedStateChange(..)``, ``maybeHandleIOException(msg)``: the row
keeps the helper's ``{parameter}``), a local that is only part of a message (``"Controller %d
".format(id) + failMsg``: ``{failMsg}`` stays), subclasses outside the scanned files (e.g. the old
consumer's fetcher thread).
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import functools
import hashlib
import re
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

# ============================================================================================
# What to scan
# ============================================================================================

FINAL_RELEASES = (
    "0.9.0.0 0.9.0.1 0.10.0.0 0.10.0.1 0.10.1.0 0.10.1.1 0.10.2.0 0.10.2.1 0.10.2.2 "
    "0.11.0.0 0.11.0.1 0.11.0.2 0.11.0.3 1.0.0 1.0.1 1.0.2 1.1.0 1.1.1 2.0.0 2.0.1 2.1.0 2.1.1 "
    "2.2.0 2.2.1 2.2.2 2.3.0 2.3.1 2.4.0 2.4.1 2.5.0 2.5.1 2.6.0 2.6.1 2.6.2 2.6.3 2.7.0 2.7.1 "
    "2.7.2 2.8.0 2.8.1 2.8.2 3.0.0 3.0.1 3.0.2 3.1.0 3.1.1 3.1.2 3.2.0 3.2.1 3.2.2 3.2.3 3.3.0 "
    "3.3.1 3.3.2 3.4.0 3.4.1 3.5.0 3.5.1 3.5.2 3.6.0 3.6.1 3.6.2 3.7.0 3.7.1 3.7.2 3.8.0 3.8.1 "
    "3.9.0 3.9.1"
).split()
#: a release with no final tag in the snapshot: the refs that stand for it, in order of preference
SUBSTITUTES = {
    "0.11.0.3": ("refs/tags/0.11.0.3-rc0",),
    "3.7.2": ("refs/heads/3.7",),
    "3.8.1": ("refs/tags/3.8.1-rc1",),
    "3.9.0": ("refs/tags/3.9.0-rc3",),
    "3.9.1": ("refs/heads/3.9",),
}
TRUNK = ("trunk-2024-10", "refs/heads/trunk")

#: the replication classes, by file base name (Scala or Java, wherever they live at a release)
CLASS_FILES = frozenset("""
    Partition Replica ReplicaManager AbstractFetcherThread ReplicaFetcherThread
    ReplicaAlterLogDirsThread AbstractFetcherManager ReplicaFetcherManager ReplicaAlterLogDirsManager
    RemoteLeaderEndPoint LeaderEndPoint LocalLeaderEndPoint Log UnifiedLog LocalLog LogManager
    LogLoader LogSegment LeaderEpochFileCache KafkaController ControllerChannelManager
    PartitionStateMachine ReplicaStateMachine Election PartitionLeaderSelector PartitionLeaderSelectors
    TopicDeletionManager AlterIsrManager AlterPartitionManager KafkaServer BrokerServer
    KafkaRaftServer ControllerServer BrokerLifecycleManager QuorumController ReplicationControlManager
    PartitionChangeBuilder PartitionRegistration ClusterControlManager BrokerHeartbeatManager
    BrokerMetadataPublisher BrokerMetadataListener StateChangeLogger
    LogCleaner LogCleanerManager Cleaner ProducerStateManager AbstractIndex OffsetIndex TimeIndex
    TransactionIndex LazyIndex KafkaApis
    KafkaRaftClient QuorumState LeaderState FollowerState CandidateState KafkaMetadataLog RaftManager
    MetadataLoader KRaftMigrationDriver ProcessTerminatingFaultHandler LoggingFaultHandler
    ZookeeperLeaderElector NodeToControllerChannelManager BrokerToControllerChannelManager
""".split())
#: read only to follow an inherited log ident or a message constant (not inventoried)
SUPPORT_FILES = frozenset({"ShutdownableThread", "ControllerZkListener", "KafkaBroker"})
SOURCE_PATH = re.compile(
    r"^(?:core|storage|metadata|raft|server|server-common)/src/main/(?:scala|java)/(?:.+/)?"
    r"(?P<base>[A-Za-z0-9_]+)\.(?:scala|java)$")
STATE_CHANGE_MARK = re.compile(r"state\.change\.logger|StateChangeLogger")

LEVELS = {"trace": "TRACE", "debug": "DEBUG", "info": "INFO", "warn": "WARN", "error": "ERROR",
          "fatal": "FATAL"}
CSV_COLUMNS = ("level", "logger", "class", "function", "template", "ident", "first", "last",
               "file", "kind", "disposition", "note")
#: the columns a person keeps (hwlib's reading of each row): carried over when the CSV is made again
KEPT_COLUMNS = ("disposition", "note")
STATE_CHANGE_LOGGER = "state.change.logger"
#: parents that give a Scala class Kafka's ``Logging`` methods
LOGGING_BASES = frozenset({"Logging", "KafkaMetricsGroup"})
#: what a field's expression may not hold (str.format reserves it) and what stands in its place
FIELD_REPLACE = str.maketrans({"{": "(", "}": ")", "!": "\u00ac", ":": "\u2236"})
#: how deep a value is followed through definitions, parameters and call sites
MAX_DEPTH = 30
CONSTRUCTOR = "<init>"
#: a Scala exception class's parameter that is its message (when it is not the first one)
MESSAGE_PARAMS = frozenset({"message", "msg", "errorMessage"})
#: a logger named by ``getClass``: the runtime class, put in per call
RUNTIME_CLASS = "<runtime class>"
#: a class whose ``new X(msg)`` is inventoried even when not thrown on the spot
EXCEPTION_CLASS = re.compile(r"(?:Exception|Error)$")
#: classes named like that that are not Throwables (a response's error and message)
NOT_THROWABLE = frozenset({"ApiError", "RecordError"})
#: read (support) to name the exception ``Errors.X.exception(msg)`` builds
ERRORS_FILE = "clients/src/main/java/org/apache/kafka/common/protocol/Errors.java"
#: its logger when the class cannot be read
API_EXCEPTION = "ApiException"

# ============================================================================================
# Lexing
# ============================================================================================


@dataclass(frozen=True, slots=True)
class Piece:
    """A piece of a message: literal text, or a value (``field``) given by its expression."""

    text: str
    field: bool = False


Pieces = tuple[Piece, ...]


@dataclass(slots=True)
class Token:
    kind: str                         # id, str, chr, num, op, punct
    text: str
    start: int
    end: int
    nl: bool                          # a line break comes before it
    pieces: Pieces = ()               # a string's literal and interpolated pieces
    interp: str = ""                  # a Scala string's interpolator (s, f, raw, ...)


OP_CHARS = frozenset("!#%&*+-/:<=>?@\\^|~")
PUNCT = frozenset("()[]{},;.")
IDENT_RE = re.compile(r"[A-Za-z_$][A-Za-z0-9_$]*")
INTERP_IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
NUMBER_RE = re.compile(r"0[xX][0-9a-fA-F_]+[lL]?|\d[\d_]*(?:\.\d[\d_]*)?(?:[eE][+-]?\d+)?[fFdDlL]?")
ESCAPE_RE = re.compile(r"\\(u+[0-9a-fA-F]{4}|[\\\"'])")
FORMAT_SPEC_RE = re.compile(r"%(\d+\$)?[-#+ 0,(<]*\d*(?:\.\d+)?([a-zA-Z%])")
F_INTERP_SPEC_RE = re.compile(r"^%[-#+ 0,(<]*\d*(?:\.\d+)?[a-zA-Z]")


def decode_escapes(raw: str) -> str:
    """Decode ``\\"``, ``\\'``, ``\\\\`` and unicode escapes; others (``\\n``, ``\\t``) stay as text."""
    def one(match: re.Match[str]) -> str:
        body = match.group(1)
        return chr(int(body.lstrip("u"), 16)) if body.startswith("u") else body
    return ESCAPE_RE.sub(one, raw)


class Lexer:
    """Turns Scala or Java source into tokens; a string token keeps its pieces.

    An unterminated string (a lexing problem) ends at the line's end and is counted in
    ``problems``; lexing goes on."""

    def __init__(self, src: str, scala: bool) -> None:
        self.src = src
        self.scala = scala
        self.n = len(src)
        self.problems: list[str] = []

    def tokens(self) -> list[Token]:
        out: list[Token] = []
        i, nl = 0, False
        src, n = self.src, self.n
        while i < n:
            c = src[i]
            if c == "\n":
                nl, i = True, i + 1
            elif c in " \t\r\f":
                while i < n and src[i] in " \t\r\f":
                    i += 1
            elif src.startswith("//", i):
                j = src.find("\n", i)
                i = n if j < 0 else j
            elif src.startswith("/*", i):
                j = self.skip_block_comment(i)
                nl = nl or "\n" in src[i:j]
                i = j
            else:
                token = self.one_token(i, nl)
                out.append(token)
                i, nl = token.end, False
        return out

    def one_token(self, i: int, nl: bool) -> Token:
        src = self.src
        c = src[i]
        if c == '"':
            end, pieces = self.string(i + 1, "")
            return Token("str", src[i:end], i, end, nl, pieces)
        if c.isalpha() or c in "_$":
            m = IDENT_RE.match(src, i)
            assert m is not None
            end = m.end()
            if self.scala and end < self.n and src[end] == '"':
                send, pieces = self.string(end + 1, m.group())
                return Token("str", src[i:send], i, send, nl, pieces, m.group())
            return Token("id", m.group(), i, end, nl)
        if c.isdigit():
            m = NUMBER_RE.match(src, i)
            assert m is not None
            return Token("num", m.group(), i, m.end(), nl)
        if c == "'":
            return self.quote(i, nl)
        if c == "`" and self.scala:
            end = src.find("`", i + 1)
            end = self.n if end < 0 else end + 1
            return Token("id", src[i + 1:end - 1], i, end, nl)
        if c in PUNCT:
            return Token("punct", c, i, i + 1, nl)
        j = i
        while j < self.n and src[j] in OP_CHARS and not src.startswith(("//", "/*"), j):
            j += 1
        j = max(j, i + 1)
        return Token("op", src[i:j], i, j, nl)

    def quote(self, i: int, nl: bool) -> Token:
        """A character literal (``'a'``, ``'\\n'``) or, in Scala, a symbol's quote."""
        src = self.src
        if i + 1 < self.n and src[i + 1] == "\\":
            end = src.find("'", i + 3)
            end = i + 1 if end < 0 else end + 1
            return Token("chr", src[i:end], i, end, nl)
        if i + 2 < self.n and src[i + 2] == "'":
            return Token("chr", src[i:i + 3], i, i + 3, nl)
        return Token("op", "'", i, i + 1, nl)

    def skip_block_comment(self, i: int) -> int:
        depth, j = 0, i
        while j < self.n:
            if self.src.startswith("/*", j):
                depth = depth + 1 if self.scala else 1
                j += 2
            elif self.src.startswith("*/", j):
                depth, j = depth - 1, j + 2
                if depth == 0:
                    return j
            else:
                j += 1
        return self.n

    def string(self, i: int, interp: str) -> tuple[int, Pieces]:
        """Scan a string whose opening quote ends just before ``i``: (end, pieces)."""
        src = self.src
        triple = src.startswith('""', i)
        if triple:
            i += 2
        # escapes: processed by Scala's s/f interpolators and plain "..."; not by raw, not in a
        # plain Scala """...""" (a Java text block processes them)
        escapes = interp != "raw" and not (triple and not interp and self.scala)
        pieces: list[Piece] = []
        buf: list[str] = []

        def flush() -> None:
            if buf:
                text = "".join(buf)
                pieces.append(Piece(decode_escapes(text) if escapes else text))
                buf.clear()

        j = i
        while j < self.n:
            c = src[j]
            if triple and src.startswith('"""', j):
                k = j
                while k < self.n and src[k] == '"':
                    k += 1
                buf.append('"' * (k - j - 3))
                flush()
                return k, self._without_format_specs(tuple(pieces), interp)
            if not triple and c == '"':
                flush()
                return j + 1, self._without_format_specs(tuple(pieces), interp)
            if not triple and c == "\n":
                break
            if c == "\\" and not triple and not (interp and src.startswith("$", j + 1)):
                buf.append(src[j:j + 2])
                j += 2
                continue
            if interp and c == "$":
                j = self._interpolation(j, buf, pieces, flush)
                continue
            buf.append(c)
            j += 1
        self.problems.append(f"unterminated string at offset {i}")
        flush()
        return j, tuple(pieces)

    def _interpolation(self, j: int, buf: list[str], pieces: list[Piece], flush: Callable[[], None]) -> int:
        src = self.src
        nxt = src[j + 1] if j + 1 < self.n else ""
        if nxt == "$":
            buf.append("$")
            return j + 2
        if nxt == "{":
            end = self.skip_code(j + 2)
            flush()
            pieces.append(Piece(src[j + 2:end], True))
            return end + 1
        m = INTERP_IDENT_RE.match(src, j + 1)
        if m:
            flush()
            pieces.append(Piece(m.group(), True))
            return m.end()
        buf.append("$")
        return j + 1

    def skip_code(self, i: int) -> int:
        """The index of the ``}`` closing an interpolated ``${`` whose code starts at ``i``."""
        depth, j = 1, i
        while j < self.n:
            c = self.src[j]
            if c == "{":
                depth += 1
            elif c == "}":
                depth -= 1
                if depth == 0:
                    return j
            elif c == '"':
                k = j
                while k > i and (self.src[k - 1].isalnum() or self.src[k - 1] == "_"):
                    k -= 1
                j, _ = self.string(j + 1, self.src[k:j])
                continue
            elif c == "'":
                j = self.quote(j, False).end
                continue
            j += 1
        self.problems.append(f"unterminated interpolation at offset {i}")
        return self.n

    @staticmethod
    def _without_format_specs(pieces: Pieces, interp: str) -> Pieces:
        """``f"$x%5d"``: drop the format spec that follows each value."""
        if interp != "f":
            return pieces
        out: list[Piece] = []
        for piece in pieces:
            if not piece.field and out and out[-1].field:
                piece = Piece(F_INTERP_SPEC_RE.sub("", piece.text, count=1))
            out.append(piece)
        return tuple(out)


# ============================================================================================
# A source file: classes, functions, definitions, calls
# ============================================================================================

Span = tuple[int, int]                # token indices [lo, hi)
OPENERS = {"(": ")", "[": "]", "{": "}"}
CLOSERS = {")", "]", "}"}
JAVA_NOT_METHODS = frozenset({"if", "for", "while", "switch", "catch", "synchronized", "return", "new",
                              "else", "try", "super", "this", "throw", "do", "case", "assert"})
CONTINUE_AFTER = frozenset({",", ".", "(", "[", "{", "else", "try", "do", "yield", "if", "match",
                            "finally", "return", "new", "extends", "with", "=>", "=", "throw", "->"})
CONTINUE_BEFORE = frozenset({".", "else", "catch", "finally", "match", "with", "extends", "{",
                             "yield", ")", "]", "}"})


@dataclass(slots=True)
class Param:
    name: str
    type: str


@dataclass(slots=True)
class ClassInfo:
    name: str
    binary: str                       # pkg.Outer$Name: what getClass.getName prints
    kind: str                         # class, object, trait, interface, enum, record
    abstract: bool
    decl: int                         # token index of the keyword
    body: Span | None                 # the body's braces, inclusive of both
    outer: int | None                 # index of the enclosing class
    parents: list[tuple[str, Span | None]] = field(default_factory=list)  # (name, args parens)
    params: list[list[Param]] = field(default_factory=list)               # constructor(s)


@dataclass(slots=True)
class Function:
    name: str
    start: int
    end: int
    params: list[Param]


@dataclass(slots=True)
class Definition:
    name: str
    pos: int                          # token index of the name
    rhs: Span


@dataclass(slots=True)
class CallSite:
    kind: str                         # log or throw
    level: str
    pos: int                          # token index of the level name / throw
    receiver: Span | None
    args: list[Span]
    exception: str = ""
    problem: str = ""
    thrown: bool = True               # a throw kind: thrown here (else only created: recorded when readable)
    error: str = ""                   # ``Errors.<error>.exception(..)``: the Errors constant


class SourceFile:
    """One file's tokens and what the inventory needs of them."""

    def __init__(self, path: str, text: str) -> None:
        self.path = path
        self.scala = path.endswith(".scala")
        self.text = text
        lexer = Lexer(text, self.scala)
        self.tokens = lexer.tokens()
        self.problems = lexer.problems
        self.match = match_brackets(self.tokens)
        self.enclosing = enclosing_brackets(self.tokens, self.match)
        self.package = read_package(self.tokens)
        self.imports = read_imports(self.tokens)
        self.classes = find_classes(self)
        self.functions = find_functions(self)
        if not self.scala:
            for cls in self.classes:
                cls.params = java_constructors(self, cls) or cls.params
        self.definitions = find_definitions(self)
        self.calls = find_calls(self)
        self._call_index: dict[str, list[int]] | None = None
        self._new_index: dict[str, list[int]] | None = None

    # --- positions -------------------------------------------------------------------------
    def class_at(self, pos: int) -> int | None:
        """The innermost named class whose header or body holds token ``pos``."""
        best: int | None = None
        for index, cls in enumerate(self.classes):
            if cls.body and cls.decl < pos < cls.body[1]:
                if best is None or cls.decl > self.classes[best].decl:
                    best = index
        return best

    def function_at(self, pos: int) -> Function | None:
        best: Function | None = None
        for fn in self.functions:
            if fn.start <= pos <= fn.end and (best is None or fn.start >= best.start):
                best = fn
        return best

    def source(self, span: Span) -> str:
        """The text of tokens ``span``, whitespace collapsed (and comments dropped)."""
        lo, hi = span
        parts: list[str] = []
        for k in range(lo, hi):
            if k > lo and self.tokens[k].start > self.tokens[k - 1].end:
                parts.append(" ")
            parts.append(self.tokens[k].text)
        return re.sub(r"\s+", " ", "".join(parts)).strip()

    def raw(self, span: Span) -> str:
        lo, hi = span
        if lo >= hi:
            return ""
        return self.text[self.tokens[lo].start:self.tokens[hi - 1].end]

    # --- call sites (for following parameters) ---------------------------------------------
    def call_sites(self, name: str) -> list[int]:
        """Indices of ``(`` opening a call of a function called ``name`` (not its declaration)."""
        if self._call_index is None:
            index: dict[str, list[int]] = defaultdict(list)
            toks = self.tokens
            for k in range(1, len(toks) - 1):
                if toks[k].kind == "id" and toks[k + 1].text == "(" and not toks[k + 1].nl:
                    before = toks[k - 1]
                    if before.text in ("def", "new") or (not self.scala and before.kind == "id"
                                                           and before.text not in ("return", "else")):
                        continue
                    index[toks[k].text].append(k + 1)
            self._call_index = index
        return self._call_index.get(name, [])

    def new_sites(self, name: str) -> list[int]:
        """Indices of ``(`` opening the arguments of ``new name(`` / ``new pkg.name(``."""
        if self._new_index is None:
            index: dict[str, list[int]] = defaultdict(list)
            toks = self.tokens
            for k, tok in enumerate(toks):
                if tok.text != "new":
                    continue
                j = k + 1
                while j + 1 < len(toks) and toks[j].kind == "id" and toks[j + 1].text == ".":
                    j += 2
                if j < len(toks) and toks[j].kind == "id":
                    paren = skip_type_args(toks, self.match, j + 1)
                    if paren < len(toks) and toks[paren].text == "(":
                        index[toks[j].text].append(paren)
            self._new_index = index
        return self._new_index.get(name, [])


def match_brackets(tokens: list[Token]) -> list[int]:
    """For each opening bracket, the index of its closing one (-1 elsewhere / unmatched)."""
    match = [-1] * len(tokens)
    stack: list[int] = []
    for k, tok in enumerate(tokens):
        if tok.kind != "punct":
            continue
        if tok.text in OPENERS:
            stack.append(k)
        elif tok.text in CLOSERS:
            while stack and OPENERS[tokens[stack[-1]].text] != tok.text:
                stack.pop()            # an unbalanced opener: give up on it
            if stack:
                match[stack.pop()] = k
    return match


def enclosing_brackets(tokens: list[Token], match: list[int]) -> list[int]:
    """For each token, the index of the innermost open bracket around it (-1: none)."""
    out = [-1] * len(tokens)
    stack: list[int] = []
    for k, tok in enumerate(tokens):
        while stack and match[stack[-1]] != -1 and match[stack[-1]] < k:
            stack.pop()
        out[k] = stack[-1] if stack else -1
        if tok.kind == "punct" and tok.text in OPENERS and match[k] > k:
            stack.append(k)
    return out


def skip_type_args(tokens: list[Token], match: list[int], j: int) -> int:
    """Past ``[..]`` (Scala) or ``<..>`` (Java) type arguments starting at ``j``."""
    if j < len(tokens) and tokens[j].text == "[" and match[j] > j:
        return match[j] + 1
    if j < len(tokens) and tokens[j].text.startswith("<"):
        depth = 0
        while j < len(tokens):
            depth += tokens[j].text.count("<") - tokens[j].text.count(">")
            j += 1
            if depth <= 0:
                break
    return j


def read_package(tokens: list[Token]) -> str:
    parts: list[str] = []
    k = 0
    while k < len(tokens):
        if tokens[k].text == "package" and (k == 0 or tokens[k - 1].text != "."):
            j, name = k + 1, []
            while j < len(tokens) and (tokens[j].kind == "id" or tokens[j].text == "."):
                if tokens[j].nl and j > k + 1:
                    break
                name.append(tokens[j].text)
                j += 1
            if j < len(tokens) and tokens[j].text == "{":
                break                  # a package object or block: ignore
            parts.append("".join(name))
            k = j
        elif tokens[k].text in ("class", "object", "trait", "interface", "enum", "import"):
            break
        else:
            k += 1
    return ".".join(p for p in parts if p)


def read_imports(tokens: list[Token]) -> dict[str, str]:
    """Simple name -> fully-qualified name, from ``import a.b.C`` and ``import a.b.{C, D}``."""
    out: dict[str, str] = {}
    for k, tok in enumerate(tokens):
        if tok.text != "import":
            continue
        j, path = k + 1, []
        while j < len(tokens) and (tokens[j].kind == "id" or tokens[j].text == ".") and not (
                tokens[j].nl and j > k + 1):
            path.append(tokens[j].text)
            j += 1
        prefix = "".join(path)
        if j < len(tokens) and tokens[j].text == "{":
            for name_tok in tokens[j + 1:]:
                if name_tok.text == "}":
                    break
                if name_tok.kind == "id":
                    out.setdefault(name_tok.text, prefix + name_tok.text)
        elif path and path[-1] not in (".", "_", "*"):
            out.setdefault(path[-1], prefix)
    return out


# --- classes ---------------------------------------------------------------------------------

SCALA_CLASS_WORDS = frozenset({"class", "object", "trait"})
JAVA_CLASS_WORDS = frozenset({"class", "interface", "enum", "record"})
SCALA_HEADER_STOP = frozenset({"class", "object", "trait", "def", "val", "var", "case", "import",
                               "package", ";", "}", "="})


def find_classes(f: SourceFile) -> list[ClassInfo]:
    toks = f.tokens
    words = SCALA_CLASS_WORDS if f.scala else JAVA_CLASS_WORDS
    found: list[ClassInfo] = []
    for k, tok in enumerate(toks[:-1]):
        if tok.kind != "id" or tok.text not in words or toks[k + 1].kind != "id":
            continue
        if k > 0 and toks[k - 1].text in (".", "@"):
            continue
        abstract = tok.text == "trait" or tok.text == "interface" or any(
            t.text == "abstract" for t in toks[max(0, k - 4):k])
        cls = ClassInfo(toks[k + 1].text, "", tok.text, abstract, k, None, None)
        (read_scala_header if f.scala else read_java_header)(f, cls, k + 2)
        found.append(cls)
    nest_classes(f, found)
    return found


def read_scala_header(f: SourceFile, cls: ClassInfo, j: int) -> None:
    toks, match = f.tokens, f.match
    in_parents = False
    while j < len(toks):
        tok = toks[j]
        if tok.text == "{":
            cls.body = (j, match[j]) if match[j] > j else None
            return
        if tok.nl and tok.text not in ("extends", "with", "(") and j > cls.decl + 2:
            return
        if tok.text in SCALA_HEADER_STOP:
            return
        if tok.text in ("extends", "with"):
            in_parents = True
            j = read_parent(f, cls, j + 1)
            continue
        if tok.text == "(" and match[j] > j:
            if not in_parents and not cls.params:
                cls.params.append(read_params(f, (j + 1, match[j])))
            j = match[j] + 1
            continue
        if tok.text == "[" and match[j] > j:
            j = match[j] + 1
            continue
        j += 1


def read_parent(f: SourceFile, cls: ClassInfo, j: int) -> int:
    """Read ``pkg.Name[T](args)`` after extends/with/implements; return the index past it."""
    toks = f.tokens
    name = ""
    while j < len(toks) and toks[j].kind == "id":
        name = toks[j].text
        j += 1
        if j + 1 < len(toks) and toks[j].text == "." and toks[j + 1].kind == "id":
            j += 1
        else:
            break
    j = skip_type_args(toks, f.match, j)
    args: Span | None = None
    if f.scala and j < len(toks) and toks[j].text == "(" and f.match[j] > j:
        args = (j, f.match[j])
        j = f.match[j] + 1
    if name:
        cls.parents.append((name, args))
    return j


def read_java_header(f: SourceFile, cls: ClassInfo, j: int) -> None:
    toks, match = f.tokens, f.match
    j = skip_type_args(toks, match, j)
    while j < len(toks):
        tok = toks[j]
        if tok.text == "{":
            cls.body = (j, match[j]) if match[j] > j else None
            return
        if tok.text in (";", "}"):
            return
        if tok.text == "(" and match[j] > j:
            cls.params.append(read_params(f, (j + 1, match[j])))
            j = match[j] + 1
            continue
        if tok.text in ("extends", "implements", ","):
            j = read_parent(f, cls, j + 1)
            continue
        j += 1


def nest_classes(f: SourceFile, classes: list[ClassInfo]) -> None:
    """Set each class's enclosing class and JVM binary name."""
    for index, cls in enumerate(classes):
        best: int | None = None
        for other_index, other in enumerate(classes):
            if other_index != index and other.body and other.body[0] < cls.decl < other.body[1]:
                if best is None or other.decl > classes[best].decl:
                    best = other_index
        cls.outer = best
    for cls in classes:
        chain = [cls.name]
        outer = cls.outer
        while outer is not None:
            chain.append(classes[outer].name)
            outer = classes[outer].outer
        name = "$".join(reversed(chain))
        cls.binary = f"{f.package}.{name}" if f.package else name


def read_params(f: SourceFile, span: Span) -> list[Param]:
    """Parameters of a list: Scala ``a: T`` or Java ``T a``."""
    out: list[Param] = []
    for lo, hi in split_args(f, span, generics=not f.scala):
        toks = f.tokens[lo:hi]
        if f.scala:
            for k, tok in enumerate(toks):
                if tok.text == ":" and k > 0 and toks[k - 1].kind == "id":
                    eq = next((m for m in range(k + 1, len(toks)) if toks[m].text == "="), len(toks))
                    out.append(Param(toks[k - 1].text, " ".join(t.text for t in toks[k + 1:eq])))
                    break
        else:
            names = [k for k, t in enumerate(toks) if t.kind == "id"]
            if names:
                last = names[-1]
                out.append(Param(toks[last].text, " ".join(t.text for t in toks[:last]
                                                           if t.text not in ("final",))))
    return out


def java_constructor_functions(f: SourceFile, index: int) -> list[Function]:
    return [fn for fn in f.functions if fn.name == CONSTRUCTOR and f.class_at(fn.start) == index
            and f.tokens[fn.start].text == f.classes[index].name]


def java_delegation(f: SourceFile, ctor: Function) -> Span | None:
    """The argument parens of a constructor's leading ``this(...)``."""
    body = next((k for k in range(ctor.start, ctor.end) if f.tokens[k].text == "{"), -1)
    if body >= 0 and f.tokens[body + 1].text == "this" and f.tokens[body + 2].text == "(":
        return (body + 2, f.match[body + 2])
    return None


def java_constructors(f: SourceFile, cls: ClassInfo) -> list[list[Param]]:
    return [fn.params for fn in f.functions if fn.name == CONSTRUCTOR and cls.body
            and cls.body[0] < fn.start < cls.body[1] and f.class_at(fn.start) == f.classes.index(cls)]


def split_args(f: SourceFile, span: Span, generics: bool = False) -> list[Span]:
    """Split tokens ``span`` (inside a bracket) at top-level commas (with ``generics``, not
    inside Java's ``<..>`` either: a parameter list)."""
    lo, hi = span
    out: list[Span] = []
    start, k = lo, lo
    angle = 0
    while k < hi:
        tok = f.tokens[k]
        if tok.kind == "punct" and tok.text in OPENERS and f.match[k] > k:
            k = f.match[k] + 1
            continue
        if generics and tok.kind == "op" and set(tok.text) <= {"<", ">"}:
            angle = max(0, angle + tok.text.count("<") - tok.text.count(">"))
        if tok.text == "," and angle == 0:
            out.append((start, k))
            start = k + 1
        k += 1
    if start < hi:
        out.append((start, hi))
    return out


# --- functions -------------------------------------------------------------------------------

def find_functions(f: SourceFile) -> list[Function]:
    out = scala_functions(f) if f.scala else java_functions(f)
    return out


def scala_functions(f: SourceFile) -> list[Function]:
    toks, match = f.tokens, f.match
    out: list[Function] = []
    for k, tok in enumerate(toks[:-1]):
        if tok.text != "def" or (k > 0 and toks[k - 1].text == "."):
            continue
        name = toks[k + 1].text
        name = CONSTRUCTOR if name == "this" else name
        j, params = k + 2, []
        end = k + 1
        while j < len(toks):
            t = toks[j]
            if t.text in ("(", "[") and match[j] > j:
                if t.text == "(":
                    params.extend(read_params(f, (j + 1, match[j])))
                j = match[j] + 1
                continue
            if t.text == "{" and match[j] > j:          # procedure syntax
                end = match[j]
                break
            if t.text == "=":
                body = j + 1
                if body < len(toks) and toks[body].text == "{" and match[body] > body and not (
                        statement_end(f, match[body]) > match[body]):
                    end = match[body]
                else:
                    end = statement_end(f, body)
                break
            if (t.nl and not continues(f, j - 1, t)) or t.text in ("}", ";", "def", "val", "var"):
                break                                     # abstract
            j += 1
        out.append(Function(name, k, end, params))
    return out


def statement_end(f: SourceFile, k: int) -> int:
    """The last token index of the Scala expression starting at ``k`` (semicolon inference)."""
    toks, match = f.tokens, f.match
    n = len(toks)
    last = k
    while k < n:
        tok = toks[k]
        if tok.kind == "punct" and tok.text in CLOSERS:
            return max(last, k - 1) if k > last else last
        if tok.text == ";":
            return last
        if tok.kind == "punct" and tok.text in OPENERS and match[k] > k:
            last = match[k]
            k = match[k] + 1
        else:
            last = k
            k += 1
        if k >= n:
            return last
        nxt = toks[k]
        if nxt.nl and not continues(f, last, nxt):
            return last
    return last


def continues(f: SourceFile, last: int, nxt: Token) -> bool:
    """Does the line starting with ``nxt`` continue the expression ending at token ``last``?"""
    prev = f.tokens[last]
    if prev.text in CONTINUE_AFTER or nxt.text in CONTINUE_BEFORE:
        return True
    if prev.kind == "op" and prev.text not in ("'", "_"):
        return True
    if nxt.kind == "op" and nxt.text not in ("@", "!", "-", "'", "_"):
        return True
    if prev.text == ")":                                  # if (...) / while (...) / for (...)
        opener = next((o for o in range(last - 1, -1, -1) if f.match[o] == last), -1)
        if opener > 0 and f.tokens[opener - 1].text in ("if", "while", "for", "catch"):
            return True
    return False


def java_functions(f: SourceFile) -> list[Function]:
    toks, match = f.tokens, f.match
    out: list[Function] = []
    for cls in f.classes:
        if not cls.body:
            continue
        k, end = cls.body[0] + 1, cls.body[1]
        while k < end:
            tok = toks[k]
            if tok.text == "{" and match[k] > k:                # an initializer block
                if toks[k - 1].text in (";", "{", "}", "static"):
                    out.append(Function(CONSTRUCTOR, k, match[k], []))
                k = match[k] + 1
                continue
            if tok.kind == "punct" and tok.text in OPENERS and match[k] > k and tok.text != "(":
                k = match[k] + 1
                continue
            if tok.kind == "id" and k + 1 < end and toks[k + 1].text == "(" and match[k + 1] > k:
                close = match[k + 1]
                body = close + 1
                if body < end and toks[body].text == "throws":
                    while body < end and toks[body].text not in ("{", ";"):
                        body += 1
                if tok.text not in JAVA_NOT_METHODS and body < end and toks[body].text == "{" \
                        and match[body] > body and toks[k - 1].text not in (".", "new", "=", "return"):
                    name = CONSTRUCTOR if tok.text == cls.name else tok.text
                    out.append(Function(name, k, match[body], read_params(f, (k + 2, close))))
                    k = match[body] + 1
                    continue
                k = close + 1
                continue
            k += 1
    return out


# --- definitions (vals, fields, assignments) -------------------------------------------------

def find_definitions(f: SourceFile) -> dict[str, list[Definition]]:
    """Scala ``val/var/def x [: T] = rhs`` (a ``def`` without parameters), Java ``T x = rhs``, and
    assignments ``x = rhs`` / ``this.x = rhs`` (not named arguments or defaults)."""
    toks = f.tokens
    out: dict[str, list[Definition]] = defaultdict(list)
    declared: set[int] = set()                 # the ``=`` of a Scala declaration
    for k, tok in enumerate(toks):
        if f.scala and tok.text in ("val", "var", "def") and k + 2 < len(toks) and toks[k + 1].kind == "id" \
                and not (tok.text == "def" and toks[k + 2].text in ("(", "[")):
            eq = scala_declaration_equals(f, k)
            if eq is not None:
                declared.add(eq)
                out[toks[k + 1].text].append(Definition(toks[k + 1].text, k + 1, rhs_span(f, eq + 1)))
        elif tok.text == "=" and k > 0 and toks[k - 1].kind == "id" and k not in declared:
            if f.enclosing[k] >= 0 and toks[f.enclosing[k]].text != "{":
                continue                                  # a named argument or a default
            before = toks[k - 2].text if k > 1 else ""
            if before == "." and not (k > 2 and toks[k - 3].text == "this"):
                continue                                  # another object's field
            out[toks[k - 1].text].append(Definition(toks[k - 1].text, k - 1, rhs_span(f, k + 1)))
    return out


def scala_declaration_equals(f: SourceFile, k: int) -> int | None:
    """The ``=`` of ``val x: T = ..`` starting at token ``k`` (None: abstract)."""
    toks = f.tokens
    eq = k + 2
    while eq < len(toks) and toks[eq].text != "=" and not (toks[eq].nl and eq > k + 2
                                                          and not continues(f, eq - 1, toks[eq])) \
            and toks[eq].text not in ("}", ";", ")"):
        eq = f.match[eq] + 1 if toks[eq].text in ("[", "(") and f.match[eq] > eq else eq + 1
    return eq if eq < len(toks) and toks[eq].text == "=" else None


def rhs_span(f: SourceFile, k: int) -> Span:
    if f.scala:
        return (k, statement_end(f, k) + 1)
    toks, match = f.tokens, f.match
    j = k
    while j < len(toks) and toks[j].text not in (";", ",") and not (
            toks[j].kind == "punct" and toks[j].text in CLOSERS):
        j = match[j] + 1 if toks[j].text in OPENERS and match[j] > j else j + 1
    return (k, j)


# --- calls -----------------------------------------------------------------------------------

def find_calls(f: SourceFile) -> list[CallSite]:
    toks = f.tokens
    out: list[CallSite] = []
    for k, tok in enumerate(toks):
        if tok.kind != "id":
            continue
        if tok.text == "error" and f.scala and k >= 2 and toks[k - 1].text == "." \
                and toks[k - 2].text == "sys" and toks[k + 1].text == "(":
            call = sys_error_call(f, k)                   # sys.error(msg) throws RuntimeException(msg)
            if call:
                out.append(call)
        elif tok.text in LEVELS and k + 1 < len(toks) and toks[k + 1].text == "(":
            call = log_call(f, k)
            if call:
                out.append(call)
        elif tok.text == "throw" and k + 1 < len(toks) and toks[k + 1].text == "new":
            call = throw_call(f, k)
            if call:
                out.append(call)
        elif tok.text == "new" and not (k > 0 and toks[k - 1].text == "throw"):
            call = created_exception(f, k)                # new X(msg) not thrown on the spot
            if call:
                out.append(call)
        elif tok.text == "Errors" and not (k > 0 and toks[k - 1].text == "."):
            call = errors_exception(f, k)                 # [throw] Errors.X.exception(msg)
            if call:
                out.append(call)
    return out


def log_call(f: SourceFile, k: int) -> CallSite | None:
    toks = f.tokens
    before = toks[k - 1] if k > 0 else None
    if before is not None and before.text in ("def", "val", "var", "new", "case"):
        return None
    receiver: Span | None = None
    if before is not None and before.text == ".":
        receiver = receiver_span(f, k - 1)
        if receiver is None:
            return None
    elif not f.scala:
        return None
    paren = k + 1
    close = f.match[paren]
    if close < 0:
        return CallSite("log", LEVELS[toks[k].text], k, receiver, [], problem="unclosed call")
    args = split_args(f, (paren + 1, close))
    problem = "" if args else "no arguments"
    return CallSite("log", LEVELS[toks[k].text], k, receiver, args, problem=problem)


def receiver_span(f: SourceFile, dot: int) -> Span | None:
    """The tokens of ``a.b(c).d`` ending just before the ``.`` at ``dot``."""
    toks = f.tokens
    j = dot - 1
    while j >= 0:
        tok = toks[j]
        if tok.text in (")", "]"):
            opener = next((o for o in range(j - 1, -1, -1) if f.match[o] == j), -1)
            if opener < 0:
                return None
            j = opener - 1
            continue
        if tok.kind == "id":
            if j > 0 and toks[j - 1].text == ".":
                j -= 2
                continue
            return (j, dot)
        return None
    return None


def sys_error_call(f: SourceFile, k: int) -> CallSite | None:
    close = f.match[k + 1]
    args = split_args(f, (k + 2, close)) if close > k else []
    return CallSite("throw", "THROW", k, None, args, exception="RuntimeException") if args else None


def throw_call(f: SourceFile, k: int) -> CallSite | None:
    """``throw new X(<args>)`` (whatever X is)."""
    found = new_instance(f, k + 1)
    if found is None:
        return None
    name, args = found
    return CallSite("throw", "THROW", k, None, args, exception=name)


def created_exception(f: SourceFile, k: int) -> CallSite | None:
    """``new XException(<args>)`` / ``new XError(<args>)`` at ``new`` (token ``k``) not directly
    thrown (``Left(new X(failMsg))``, ``future.completeExceptionally(new X(..))``)."""
    found = new_instance(f, k)
    if found is None or not EXCEPTION_CLASS.search(found[0]) or found[0] in NOT_THROWABLE:
        return None
    return CallSite("throw", "THROW", k, None, found[1], exception=found[0], thrown=False)


def new_instance(f: SourceFile, k: int) -> tuple[str, list[Span]] | None:
    """``new pkg.X[T](args)`` at ``new`` (token ``k``): X's simple name and the arguments (None:
    no argument list, or no arguments)."""
    toks = f.tokens
    j, name = k + 1, ""
    while j < len(toks) and (toks[j].kind == "id" or toks[j].text == "."):
        if j > k + 1 and toks[j].nl and toks[j].text != ".":
            break                                         # ``new X`` ends its line
        if toks[j].kind == "id":
            name = toks[j].text
        j += 1
    j = skip_type_args(toks, f.match, j)
    if not name or j >= len(toks) or toks[j].text != "(" or f.match[j] < 0:
        return None
    args = split_args(f, (j + 1, f.match[j]))
    return (name, args) if args else None


def errors_exception(f: SourceFile, k: int) -> CallSite | None:
    """``Errors.SOME_ERROR.exception(<message>)`` at ``Errors`` (token ``k``), thrown or not; the
    exception class is read from the release's Errors.java (``Tree.error_exception``)."""
    toks = f.tokens
    if k + 5 >= len(toks) or toks[k + 1].text != "." or not re.fullmatch(r"[A-Z][A-Z0-9_]*", toks[k + 2].text) \
            or toks[k + 3].text != "." or toks[k + 4].text != "exception" or toks[k + 5].text != "(" \
            or f.match[k + 5] < 0:
        return None
    args = split_args(f, (k + 6, f.match[k + 5]))
    if not args:
        return None                                       # the error's default message
    thrown = k > 0 and toks[k - 1].text == "throw"
    return CallSite("throw", "THROW", k - 1 if thrown else k, None, args, thrown=thrown,
                    error=toks[k + 2].text)


# ============================================================================================
# Templates
# ============================================================================================

def strip_parens(f: SourceFile, span: Span) -> Span:
    lo, hi = span
    while hi - lo >= 2 and f.tokens[lo].text == "(" and f.match[lo] == hi - 1:
        lo, hi = lo + 1, hi - 1
    return (lo, hi)


def split_plus(f: SourceFile, span: Span) -> list[Span]:
    """Split an expression at its top-level binary ``+``."""
    lo, hi = span
    out: list[Span] = []
    start, k = lo, lo
    while k < hi:
        tok = f.tokens[k]
        if tok.kind == "punct" and tok.text in OPENERS and f.match[k] > k:
            k = f.match[k] + 1
            continue
        if tok.text == "+" and k > start and f.tokens[k - 1].kind != "op":
            out.append((start, k))
            start = k + 1
        k += 1
    out.append((start, hi))
    return out


def expr_pieces(f: SourceFile, span: Span) -> tuple[list[Piece], bool]:
    """An expression as message pieces, and whether it is text (a string expression)."""
    span = strip_parens(f, span)
    if span[0] >= span[1]:
        return [], False
    operands = split_plus(f, span)
    first_text = -1
    converted: list[list[Piece] | None] = []
    for index, operand in enumerate(operands):
        pieces = operand_pieces(f, operand) if first_text < 0 or index >= first_text else None
        converted.append(pieces)
        if pieces is not None and first_text < 0:
            first_text = index
    if first_text < 0:
        return [Piece(f.source(span), True)], False
    out: list[Piece] = []
    if first_text > 0:
        out.append(Piece(f.source((operands[0][0], operands[first_text - 1][1])), True))
    for operand, pieces in zip(operands[first_text:], converted[first_text:], strict=True):
        out.extend(pieces if pieces is not None else [Piece(f.source(operand), True)])
    return out, True


def operand_pieces(f: SourceFile, span: Span) -> list[Piece] | None:
    """A ``+`` operand that is text: a literal, ``lit.format(..)``, ``String.format(..)``, ``(..)``."""
    toks = f.tokens
    lo, hi = span
    if lo >= hi:
        return None
    base: list[Piece] | None
    if toks[lo].kind == "str":
        base, k = list(toks[lo].pieces), lo + 1
    elif toks[lo].text == "(" and f.match[lo] > lo:
        inner, is_text = expr_pieces(f, (lo + 1, f.match[lo]))
        base, k = (inner if is_text else None), f.match[lo] + 1
    elif hi - lo >= 4 and toks[lo].text == "String" and toks[lo + 1].text == "." \
            and toks[lo + 2].text == "format" and toks[lo + 3].text == "(" and f.match[lo + 3] == hi - 1:
        args = split_args(f, (lo + 4, hi - 1))
        if not args:
            return None
        fmt, is_text = expr_pieces(f, args[0])
        return apply_format(fmt, [arg_pieces(f, a) for a in args[1:]]) if is_text else None
    else:
        return None
    if base is None:
        return None
    return apply_postfix(f, base, k, hi)


def apply_postfix(f: SourceFile, base: list[Piece], k: int, hi: int) -> list[Piece] | None:
    """Apply ``.format(..)``, ``.stripMargin``, ``.trim``, ``.toString`` following a string."""
    toks = f.tokens
    while k < hi:
        if toks[k].text != "." or k + 1 >= hi:
            return None
        method = toks[k + 1].text
        k += 2
        args: list[Span] = []
        if k < hi and toks[k].text == "(" and f.match[k] > k:
            args = split_args(f, (k + 1, f.match[k]))
            k = f.match[k] + 1
        if method == "format":
            base = apply_format(base, [arg_pieces(f, a) for a in args])
        elif method == "stripMargin":
            base = strip_margin(base)
        elif method in ("trim", "toString", "strip", "linesIterator", "lines"):
            continue
        elif method == "mkString" and len(args) == 1 and f.tokens[args[0][0]].kind == "str":
            separator = "".join(p.text for p in f.tokens[args[0][0]].pieces)    # lines joined
            base = [p if p.field else Piece(p.text.replace("\n", separator)) for p in base]
        else:
            return None
    return base


def arg_pieces(f: SourceFile, span: Span) -> list[Piece]:
    """A format argument: its text when it is a string expression, else one field."""
    pieces, is_text = expr_pieces(f, span)
    return pieces if is_text else [Piece(f.source(strip_parens(f, span)), True)]


def apply_format(pieces: list[Piece], args: list[list[Piece]]) -> list[Piece]:
    """Put ``args`` in the ``%`` specifiers of the literal pieces (java.util.Formatter syntax)."""
    out: list[Piece] = []
    next_arg = 0
    for piece in pieces:
        if piece.field:
            out.append(piece)
            continue
        last = 0
        for m in FORMAT_SPEC_RE.finditer(piece.text):
            out.append(Piece(piece.text[last:m.start()]))
            last = m.end()
            conversion = m.group(2)
            if conversion == "%":
                out.append(Piece("%"))
            elif conversion == "n":
                out.append(Piece("\\n"))
            else:
                index = int(m.group(1)[:-1]) - 1 if m.group(1) else next_arg
                if not m.group(1):
                    next_arg += 1
                out.extend(args[index] if 0 <= index < len(args) else [Piece(m.group())])
        out.append(Piece(piece.text[last:]))
    return [p for p in out if p.field or p.text]


def strip_margin(pieces: list[Piece]) -> list[Piece]:
    out: list[Piece] = []
    for index, piece in enumerate(pieces):
        text = piece.text
        if not piece.field:
            text = re.sub(r"\n[ \t]*\|", "\n", text)
            if index == 0:
                text = re.sub(r"^[ \t]*\|", "", text)
        out.append(Piece(text, piece.field))
    return out


SLF4J_ANCHOR = re.compile(r"(?<!\\)\{\}")


def substitute_slf4j(pieces: list[Piece], args: list[list[Piece]]) -> list[Piece]:
    """Put ``args`` in the ``{}`` anchors of the literal pieces; extra arguments (a Throwable) go."""
    out: list[Piece] = []
    next_arg = 0
    for piece in pieces:
        if piece.field:
            out.append(piece)
            continue
        last = 0
        for m in SLF4J_ANCHOR.finditer(piece.text):
            if next_arg >= len(args):
                break
            out.append(Piece(piece.text[last:m.start()]))
            out.extend(args[next_arg])
            next_arg += 1
            last = m.end()
        out.append(Piece(piece.text[last:]))
    return [p for p in out if p.field or p.text]


def render(pieces: Iterable[Piece]) -> str:
    """Pieces as a str.format template: literal braces doubled, fields sanitised."""
    out: list[str] = []
    for piece in pieces:
        if piece.field:
            text = re.sub(r"\s+", " ", piece.text).strip().translate(FIELD_REPLACE)
            out.append("{" + text + "}")
        else:
            text = piece.text.replace("\r", "").replace("\n", "\\n").replace("\t", "\\t")
            out.append(text.replace("{", "{{").replace("}", "}}"))
    return "".join(out)


def unparsed(raw: str, why: str) -> str:
    text = re.sub(r"\s+", " ", raw).strip()
    return f"UNPARSED ({why}): " + text.replace("{", "{{").replace("}", "}}")


def is_local_declaration(f: SourceFile, definition: Definition) -> bool:
    """``val x = ..`` / ``var x = ..`` (Scala) or ``[final] T x = ..`` (Java), not ``x = ..``."""
    before = f.tokens[definition.pos - 1] if definition.pos > 0 else None
    if before is None:
        return False
    if f.scala:
        return before.text in ("val", "var")
    return (before.kind == "id" and before.text not in ("else", "return", "do", "case", "throw")) \
        or before.text in (">", "]")


def local_message(f: SourceFile, pos: int, span: Span) -> list[Piece] | None:
    """A message that is one name - a local declared once earlier in the function around ``pos``
    (in a block that holds ``pos``) with a string expression and never assigned again
    (``val failMsg = s"..."``, Java ``String msg = String.format(..)``): that expression's pieces."""
    lo, hi = span
    toks = f.tokens
    if hi - lo != 1 or toks[lo].kind != "id":
        return None
    fn = f.function_at(pos)
    if fn is None:
        return None
    name = toks[lo].text
    mine = [d for d in f.definitions.get(name, []) if fn.start <= d.pos <= fn.end and f.function_at(d.pos) is fn]
    if not mine or not all(is_local_declaration(f, d) for d in mine):
        return None                                       # not a local, or assigned again
    if any(toks[k].text == name and toks[k + 1].text == "+=" for k in range(fn.start, min(fn.end, len(toks) - 1))):
        return None
    visible: list[Definition] = []
    for definition in mine:
        block = f.enclosing[definition.pos]
        if definition.pos >= pos or block < 0 or not block < pos < f.match[block]:
            continue
        if f.scala and any(toks[k].text == "case" and f.enclosing[k] == block for k in range(definition.pos, pos)):
            continue                                      # another case's local
        visible.append(definition)
    if not visible:
        return None
    definition = max(visible, key=lambda d: d.pos)
    pieces, is_text = expr_pieces(f, definition.rhs)
    return pieces if is_text and pieces else None


def message_template(f: SourceFile, call: CallSite, slf4j: bool,
                     constant: Callable[[SourceFile, Span], Pieces | None] | None = None) -> str:
    """The call's message as a template; ``constant`` reads a message that names a string constant."""
    return read_message(f, call, slf4j, constant)[0]


def read_message(f: SourceFile, call: CallSite, slf4j: bool,
                 constant: Callable[[SourceFile, Span], Pieces | None] | None = None) -> tuple[str, bool]:
    """The call's message as a template, and whether it was read (text with some literal words)."""
    if call.problem:
        return unparsed(f.raw((call.pos, min(call.pos + 12, len(f.tokens)))), call.problem), False
    pieces, is_text = expr_pieces(f, call.args[0])
    if not pieces:
        return unparsed(f.raw(call.args[0]), "empty message"), False
    if not is_text:
        local = local_message(f, call.pos, strip_parens(f, call.args[0]))
        if local is not None:
            pieces, is_text = local, True
    if not is_text and constant is not None:
        found = constant(f, strip_parens(f, call.args[0]))
        if found is not None:
            pieces, is_text = list(found), True
    if slf4j and is_text and len(call.args) > 1:
        pieces = substitute_slf4j(pieces, [arg_pieces(f, a) for a in call.args[1:]])
    return render(pieces), is_text and has_literal(tuple(pieces))


# ============================================================================================
# Values: following a name to what it holds (log idents, loggers, state change loggers)
# ============================================================================================


@dataclass(frozen=True, slots=True)
class Text:
    pieces: Pieces
    put_in: bool = False              # an argument given at a call: put it in even if not text


@dataclass(frozen=True, slots=True)
class LogCtx:
    prefix: Pieces


@dataclass(frozen=True, slots=True)
class LoggerValue:
    name: str
    ident: Pieces


@dataclass(frozen=True, slots=True)
class StateLogger:
    broker: str | None                # the brokerId argument's source
    controller: bool | None
    epoch: str | None                 # the controller epoch's source (None: none)
    legacy: bool = False              # the pre-1.0 case class: no ident


@dataclass(frozen=True, slots=True)
class Flag:
    value: bool


@dataclass(frozen=True, slots=True)
class Opt:
    value: str | None                 # Some(expr) or None


Value = Text | LogCtx | LoggerValue | StateLogger | Flag | Opt
Bindings = dict[str, Value]


def has_literal(pieces: Pieces) -> bool:
    return any(not p.field and p.text for p in pieces)


class Tree:
    """The parsed files of one release, and the resolver that follows values across them."""

    def __init__(self, files: dict[str, SourceFile], inventory: list[str]) -> None:
        self.files = files
        self.inventory = inventory
        self.by_class: dict[str, list[tuple[SourceFile, int]]] = defaultdict(list)
        for path in sorted(files):
            for index, cls in enumerate(files[path].classes):
                self.by_class[cls.name].append((files[path], index))
        self._ident_cache: dict[tuple[str, int], Pieces | None] = {}
        self._active: set[tuple[str, Span, tuple[str, ...]]] = set()
        self._errors: dict[str, str] = {}

    # --- string constants ----------------------------------------------------------------------
    def constant_text(self, f: SourceFile, span: Span) -> Pieces | None:
        """A message that only names a string constant - ``NAME`` or ``Obj.NAME``, a member whose
        value is a plain string literal (``val STARTED_MESSAGE = "Kafka Server started"``)."""
        lo, hi = span
        toks = f.tokens
        if hi - lo == 1 and toks[lo].kind == "id":
            cls_index = f.class_at(lo)
            while cls_index is not None:
                literal = self.literal_member(f, cls_index, toks[lo].text)
                if literal is not None:
                    return literal
                cls_index = f.classes[cls_index].outer
            return None
        if hi - lo == 3 and toks[lo].kind == "id" and toks[lo + 1].text == "." and toks[lo + 2].kind == "id":
            for cf, index in self.by_class.get(toks[lo].text, []):
                literal = self.literal_member(cf, index, toks[lo + 2].text)
                if literal is not None:
                    return literal
        return None

    def literal_member(self, f: SourceFile, index: int, name: str) -> Pieces | None:
        definition = self.own_definition(f, index, name)
        if definition is None or function_name(f, definition.pos) != CONSTRUCTOR:
            return None
        lo, hi = definition.rhs
        token = f.tokens[lo]
        if hi - lo == 1 and token.kind == "str" and not any(p.field for p in token.pieces):
            return token.pieces
        return None

    def message_argument_first(self, call: CallSite) -> CallSite:
        """A ``throw new X(a, message, ..)`` whose class X (a Scala class of the scanned files) takes
        its message after another parameter (``LogCleaningException(log, message, cause)``): the
        call with that argument first."""
        found = self.find_class(call.exception)
        if found is None or not found[0].scala or not found[0].classes[found[1]].params:
            return call
        params = found[0].classes[found[1]].params[0]
        index = next((i for i, p in enumerate(params) if p.name in MESSAGE_PARAMS
                      and p.type.split(" ")[0] == "String"), 0)
        if index <= 0 or index >= len(call.args):
            return call
        args = [call.args[index]] + [a for i, a in enumerate(call.args) if i != index]
        return dataclasses.replace(call, args=args)

    def error_exception(self, error: str) -> str:
        """The simple name of the exception ``Errors.<error>.exception(msg)`` builds, as the
        release's Errors.java (a support file) declares it - ``NOT_LEADER_OR_FOLLOWER(6, "..",
        NotLeaderOrFollowerException::new)``, ``new ApiExceptionBuilder() {.. return new
        NotLeaderForPartitionException(message) ..}`` - else ``ApiException``."""
        if error not in self._errors:
            self._errors[error] = API_EXCEPTION
            ef = self.files.get(ERRORS_FILE)
            body = next((c.body for c in ef.classes if c.name == "Errors" and c.body), None) if ef else None
            if ef is not None and body is not None:
                toks, (lo, hi) = ef.tokens, body
                for k in range(lo + 1, hi - 1):
                    if toks[k].text != error or ef.enclosing[k] != lo or toks[k + 1].text != "(" \
                            or ef.match[k + 1] < 0:
                        continue
                    name = next((toks[j].text for j in range(k + 2, ef.match[k + 1])
                                 if toks[j].kind == "id" and toks[j].text.endswith("Exception")
                                 and toks[j + 1].text in ("(", "::")), None)
                    if name:
                        self._errors[error] = name
                    break
        return self._errors[error]

    # --- classes -------------------------------------------------------------------------------
    def find_class(self, name: str, near: SourceFile | None = None) -> tuple[SourceFile, int] | None:
        found = sorted(self.by_class.get(name, []), key=lambda item: item[0].classes[item[1]].kind == "object")
        if near is not None:
            for f, index in found:
                if f is near:
                    return f, index
        return found[0] if found else None

    def logging_class(self, f: SourceFile, index: int | None) -> int | None:
        """The innermost enclosing class that has Kafka's Logging methods (else the innermost)."""
        cls_index = index
        while cls_index is not None:
            if self.has_logging(f, cls_index, 0):
                return cls_index
            cls_index = f.classes[cls_index].outer
        return index

    def has_logging(self, f: SourceFile, index: int, depth: int) -> bool:
        if depth > MAX_DEPTH:
            return False
        for name, _ in f.classes[index].parents:
            if name in LOGGING_BASES:
                return True
            parent = self.find_class(name, f)
            if parent and self.has_logging(parent[0], parent[1], depth + 1):
                return True
        return False

    def concrete_classes(self, f: SourceFile, index: int, depth: int = 0) -> list[tuple[SourceFile, int]]:
        """The runtime classes of an abstract class or trait: its concrete subclasses in the tree."""
        cls = f.classes[index]
        if not cls.abstract or depth > MAX_DEPTH:
            return [(f, index)]
        out: list[tuple[SourceFile, int]] = []
        for path in sorted(self.files):
            other = self.files[path]
            for other_index, sub in enumerate(other.classes):
                if any(name == cls.name for name, _ in sub.parents) and sub is not cls:
                    out.extend(self.concrete_classes(other, other_index, depth + 1))
        return out or [(f, index)]

    def class_fqn(self, f: SourceFile, name: str) -> str:
        """The fully-qualified name of class ``name`` as seen from file ``f``."""
        for cls in f.classes:
            if cls.name == name:
                return cls.binary
        if name in f.imports:
            return f.imports[name]
        if "." in name:
            return name
        return f"{f.package}.{name}" if f.package else name

    # --- the Scala Logging ident of a class ------------------------------------------------------
    def class_ident(self, f: SourceFile, index: int, bindings: Bindings | None = None,
                    depth: int = 0) -> Pieces | None:
        key = (f.path, index)
        if bindings is None and key in self._ident_cache:
            return self._ident_cache[key]
        result = self._class_ident(f, index, bindings or {}, depth)
        if bindings is None:
            self._ident_cache[key] = result
        return result

    def _class_ident(self, f: SourceFile, index: int, bindings: Bindings, depth: int) -> Pieces | None:
        if depth > MAX_DEPTH:
            return None
        own = self.own_definition(f, index, "logIdent")
        if own is not None:
            value = self.value(f, own.rhs, bindings, depth + 1)
            if isinstance(value, LogCtx):
                return value.prefix
            if isinstance(value, Text):
                return value.pieces
            return (Piece(f.source(own.rhs), True),)
        for name, args in f.classes[index].parents:
            parent = self.find_class(name, f)
            if parent is None or parent == (f, index):
                continue
            parent_bindings = {**self.overrides(f, index), **bindings}
            parent_bindings.update(self.bind_arguments(f, args, parent, bindings, depth + 1))
            ident = self.class_ident(parent[0], parent[1], parent_bindings, depth + 1)
            if ident is not None:
                return ident
        return None

    def overrides(self, f: SourceFile, index: int) -> Bindings:
        """The class's own members that are a string literal (``def logName = "X"``): a parent's
        ident that names them reads the subclass's value."""
        out: Bindings = {}
        for name, definitions in f.definitions.items():
            for definition in definitions:
                lo, hi = definition.rhs
                if hi - lo == 1 and f.tokens[lo].kind == "str" and f.class_at(definition.pos) == index:
                    out.setdefault(name, Text(f.tokens[lo].pieces))
        return out

    def own_definition(self, f: SourceFile, index: int, name: str) -> Definition | None:
        """The first definition of ``name`` in class ``index``'s own body (not a nested class's)."""
        for definition in f.definitions.get(name, []):
            if f.class_at(definition.pos) == index:
                return definition
        return None

    def bind_arguments(self, f: SourceFile, args: Span | None, target: tuple[SourceFile, int],
                       bindings: Bindings, depth: int) -> Bindings:
        """Bind the target class's constructor parameters to the arguments ``args`` given in ``f``."""
        out: Bindings = {}
        if args is None:
            return out
        tf, tindex = target
        arg_spans = split_args(f, (args[0] + 1, args[1]))
        if tf.scala:
            params = tf.classes[tindex].params[0] if tf.classes[tindex].params else []
            return self.bind(f, params, arg_spans, bindings, depth)
        for ctor in java_constructor_functions(tf, tindex):
            if len(ctor.params) != len(arg_spans):
                continue
            out = self.bind(f, ctor.params, arg_spans, bindings, depth)
            delegated = java_delegation(tf, ctor)
            if delegated is not None:           # this(a, b, "[" + a + "]: ")
                out.update(self.bind_arguments(tf, delegated, target, out, depth + 1))
            return out
        return out

    def bind(self, f: SourceFile, params: list[Param], arg_spans: list[Span], bindings: Bindings,
             depth: int) -> Bindings:
        out: Bindings = {}
        for name, span in match_arguments(f, params, arg_spans).items():
            value = self.value(f, span, bindings, depth + 1)
            out[name] = value if value is not None else Text((Piece(f.source(span), True),))
        return out

    # --- values ------------------------------------------------------------------------------------
    def value(self, f: SourceFile, span: Span, bindings: Bindings, depth: int) -> Value | None:
        """What the expression ``span`` of ``f`` holds, as far as the inventory needs to know."""
        key = (f.path, span, tuple(sorted(bindings)))
        if depth > MAX_DEPTH or key in self._active:
            return None                                   # too deep, or a cycle
        self._active.add(key)
        try:
            return self._value(f, span, bindings, depth)
        finally:
            self._active.discard(key)

    def _value(self, f: SourceFile, span: Span, bindings: Bindings, depth: int) -> Value | None:
        span = strip_parens(f, span)
        lo, hi = span
        if lo >= hi:
            return None
        toks = f.tokens
        if toks[lo].text == "if":
            return self.if_value(f, span, bindings, depth)
        none_case = option_none_case(f, span)
        if none_case is not None:
            return self.value(f, none_case, bindings, depth + 1)
        pieces, is_text = expr_pieces(f, span)
        if is_text:
            return Text(self.resolve_fields(f, lo, tuple(pieces), bindings, depth))
        return self.chain_value(f, span, bindings, depth)

    def resolve_fields(self, f: SourceFile, pos: int, pieces: Pieces, bindings: Bindings,
                       depth: int) -> Pieces:
        """Put in the text of each field that names a value holding text."""
        out: list[Piece] = []
        for piece in pieces:
            if piece.field and re.fullmatch(r"(this\.)?[A-Za-z_]\w*(\.logPrefix(\(\))?)?", piece.text.strip()):
                name = piece.text.strip().removeprefix("this.")
                value = self.name_value(f, pos, name.split(".")[0], bindings, depth + 1)
                if isinstance(value, LogCtx):
                    value = Text(value.prefix)
                if isinstance(value, Text) and (has_literal(value.pieces) or value.put_in or not value.pieces):
                    out.extend(value.pieces)
                    continue
            out.append(piece)
        return tuple(out)

    def if_value(self, f: SourceFile, span: Span, bindings: Bindings, depth: int) -> Value | None:
        """``if (flag) a else b`` with ``flag`` bound."""
        lo, hi = span
        toks = f.tokens
        if lo + 1 >= hi or toks[lo + 1].text != "(" or f.match[lo + 1] < 0:
            return None
        close = f.match[lo + 1]
        cond = f.source((lo + 2, close))
        flag = bindings.get(cond)
        else_at = next((k for k in range(close + 1, hi) if toks[k].text == "else"
                        and f.enclosing[k] == f.enclosing[lo]), -1)
        if not isinstance(flag, Flag) or else_at < 0:
            return None
        branch = (close + 1, else_at) if flag.value else (else_at + 1, hi)
        return self.value(f, branch, bindings, depth + 1)

    def chain_value(self, f: SourceFile, span: Span, bindings: Bindings, depth: int) -> Value | None:
        """``new X(..)``, ``a.b(..).c``: evaluate left to right."""
        toks = f.tokens
        lo, hi = span
        k = lo
        current: Value | None = None
        path: list[str] = []
        if toks[k].text == "new":
            k, current = self.new_value(f, k, hi, bindings, depth)
            if k < 0:
                return None
            path.append("new")
        while k < hi:
            tok = toks[k]
            if tok.text == ".":
                k += 1
                continue
            if tok.kind != "id":
                return None
            name = tok.text
            args: list[Span] | None = None
            nxt = k + 1
            if nxt < hi and toks[nxt].text == "(" and f.match[nxt] > nxt:
                args = split_args(f, (nxt + 1, f.match[nxt]))
                nxt = f.match[nxt] + 1
            if nxt < hi and toks[nxt].text == "(" and f.match[nxt] > nxt and name == "fold":
                current = self.fold_value(f, current, args or [], (nxt + 1, f.match[nxt]), bindings, depth)
                nxt = f.match[nxt] + 1
            elif name == "getOrElse" and args and not (isinstance(current, Opt) and current.value):
                current = self.value(f, args[0], bindings, depth + 1)   # an unknown Option: None
            else:
                current = self.step(f, k, current, path, name, args, bindings, depth)
            path.append(name)
            k = nxt
        return current

    def new_value(self, f: SourceFile, k: int, hi: int, bindings: Bindings,
                  depth: int) -> tuple[int, Value | None]:
        toks = f.tokens
        j, name = k + 1, ""
        while j < hi and (toks[j].kind == "id" or toks[j].text == "."):
            name = toks[j].text if toks[j].kind == "id" else name
            j += 1
        j = skip_type_args(toks, f.match, j)
        args: list[Span] = []
        if j < hi and toks[j].text == "(" and f.match[j] > j:
            args = split_args(f, (j + 1, f.match[j]))
            j = f.match[j] + 1
        if name == "LogContext":
            if not args:
                return j, LogCtx(())
            text = self.value(f, args[0], bindings, depth + 1)
            prefix = text.pieces if isinstance(text, Text) else (Piece(f.source(args[0]), True),)
            return j, LogCtx(prefix)
        if name == "StateChangeLogger":
            return j, self.state_logger_value(f, args, bindings, depth)
        return -1, None

    def state_logger_value(self, f: SourceFile, args: list[Span], bindings: Bindings,
                           depth: int) -> StateLogger:
        if len(args) == 1 and f.tokens[args[0][0]].kind == "str":
            return StateLogger(None, None, None, legacy=True)
        named = {"brokerId": None, "inControllerContext": None, "controllerEpoch": None}
        positional = list(named)
        values: dict[str, str] = {}
        for index, span in enumerate(args):
            name, span = split_named(f, span)
            key = name if name in named else (positional[index] if index < len(positional) else "")
            if key:
                values[key] = f.source(span)
        epoch_src = values.get("controllerEpoch", "None")
        epoch = None if epoch_src in ("None", "") else re.sub(r"^Some\((.*)\)$", r"\1", epoch_src)
        controller = {"true": True, "false": False}.get(values.get("inControllerContext", ""))
        if controller is None and values.get("inControllerContext") in bindings:
            flag = bindings[values["inControllerContext"]]
            controller = flag.value if isinstance(flag, Flag) else None
        return StateLogger(values.get("brokerId"), controller, epoch)

    def fold_value(self, f: SourceFile, target: Value | None, empty: list[Span], lam: Span,
                   bindings: Bindings, depth: int) -> Value | None:
        """``opt.fold(a)(x => b)`` with ``opt`` bound to an Opt."""
        if not empty or not (target is None or isinstance(target, Opt)):
            return None
        if target is None or target.value is None:             # an unknown Option: None
            return self.value(f, empty[0], bindings, depth + 1)
        toks = f.tokens
        arrow = next((k for k in range(*lam) if toks[k].text == "=>"), -1)
        if arrow < 0:
            return None
        inner = dict(bindings)
        inner[f.source((lam[0], arrow)).strip("() ")] = Text((Piece(target.value, True),), put_in=True)
        return self.value(f, (arrow + 1, lam[1]), inner, depth + 1)

    def step(self, f: SourceFile, k: int, current: Value | None, path: list[str], name: str,
             args: list[Span] | None, bindings: Bindings, depth: int) -> Value | None:
        """One link of a chain: ``name`` or ``name(args)`` applied to ``current``."""
        if not path or path == ["this"]:
            if name == "logger" and args is None and f.scala and not f.definitions.get("logger"):
                logging = self.logging_class(f, f.class_at(k))
                if logging is not None and self.has_logging(f, logging, 0):
                    return LoggerValue(RUNTIME_CLASS, ())          # Logging's logger, no ident
        if name == "underlying" and isinstance(current, LoggerValue):
            return current
        if not path:
            if name == "this":
                return None
            if name in ("LoggerFactory", "Logger", "KafkaController", "StateChangeLogger") and args is None:
                return None
            if args is not None and name in ("Logger", "getLogger"):
                return self.logger_value(f, args, ())
            return self.name_value(f, k, name, bindings, depth + 1)
        if name in ("logPrefix",) and isinstance(current, LogCtx):
            return Text(current.prefix)
        if name == "logger" and args is not None and isinstance(current, LogCtx):
            prefix = current.prefix or self.creator_log_context(top_class_name(f, k)) or ()
            return self.logger_value(f, args, prefix)
        if name == "getLogger" and args is not None and path[-1] in ("LoggerFactory", "Logger", "LogManager"):
            return self.logger_value(f, args, ())
        if name == "stateChangeLogger" and path == ["KafkaController"]:
            return StateLogger(None, None, None, legacy=True)
        if name == "withControllerEpoch" and isinstance(current, StateLogger) and args:
            return StateLogger(current.broker, current.controller, f.source(args[0]), current.legacy)
        opaque = current is None or (isinstance(current, Text) and not has_literal(current.pieces))
        if opaque and args is None and len(path) == 1 and path[0] != "this" and name[0].islower():
            found = self.name_value(f, k, name, bindings, depth + 1, same_file_only=True)
            type_name = self.declared_type(f, k, path[0])
            if found is None and type_name:
                found = self.member_value(type_name, name, depth + 1, set())
            return found
        if current is None and path == ["this"]:
            return self.name_value(f, k, name, bindings, depth + 1)
        return None

    def declared_type(self, f: SourceFile, pos: int, name: str) -> str:
        """The (first) type name of a parameter ``name`` in scope at ``pos``."""
        fn = f.function_at(pos)
        params = list(fn.params) if fn else []
        cls_index = f.class_at(pos)
        while cls_index is not None:
            params.extend(p for ps in f.classes[cls_index].params for p in ps)
            cls_index = f.classes[cls_index].outer
        for param in params:
            if param.name == name:
                m = re.match(r"[A-Za-z_][\w.]*", param.type)
                return m.group().split(".")[-1] if m else ""
        return ""

    def member_value(self, type_name: str, member: str, depth: int, seen: set[str]) -> Value | None:
        """Member ``member`` of class ``type_name``: its own, a parent's, or an implementor's."""
        if type_name in seen or depth > MAX_DEPTH:
            return None
        seen.add(type_name)
        found = self.find_class(type_name)
        if found is None:
            return None
        cf, index = found
        definition = self.own_definition(cf, index, member)
        if definition is not None:
            return self.value(cf, definition.rhs, {}, depth + 1)
        related = [name for name, _ in cf.classes[index].parents]
        related += [sub.name for path in sorted(self.files) for sub in self.files[path].classes
                    if any(name == type_name for name, _ in sub.parents)]
        for name in related:
            value = self.member_value(name, member, depth + 1, seen)
            if value is not None:
                return value
        return None

    def logger_value(self, f: SourceFile, args: list[Span], ident: Pieces) -> LoggerValue | None:
        if not args:
            return None
        toks = f.tokens
        lo, hi = args[0]
        text = f.source(args[0])
        if toks[lo].kind == "str":
            return LoggerValue("".join(p.text for p in toks[lo].pieces), ident)
        m = re.fullmatch(r"classOf\[([\w.]+)\](?: ?\. ?getName)?|([\w.]+) ?\. ?class(?: ?\. ?getName ?\( ?\))?", text)
        if m:
            return LoggerValue(self.class_fqn(f, m.group(1) or m.group(2)), ident)
        if re.fullmatch(r"(this ?\. ?)?getClass(\(\))?( ?\. ?getName(\(\))?)?", text):
            return LoggerValue(RUNTIME_CLASS, ident)
        return LoggerValue("{" + text + "}", ident)

    # --- names -------------------------------------------------------------------------------------
    def name_value(self, f: SourceFile, pos: int, name: str, bindings: Bindings, depth: int,
                   same_file_only: bool = False) -> Value | None:
        """What ``name`` holds at token ``pos``: a binding, a definition, a parameter's argument."""
        if depth > MAX_DEPTH:
            return None
        if name in bindings:
            return bindings[name]
        definition = self.nearest_definition(f, pos, name)
        if definition is not None and not self.is_self_assignment(f, definition):
            value = self.value(f, definition.rhs, bindings, depth + 1)
            if value is not None:
                return value
        if same_file_only:
            return None
        values = self.parameter_values(f, pos, name, depth)
        if values:
            return values[0]
        return self.inherited_value(f, pos, name, depth)

    def is_self_assignment(self, f: SourceFile, definition: Definition) -> bool:
        """``this.x = x``: the value comes from the parameter ``x``."""
        return f.source(definition.rhs) == definition.name

    def nearest_definition(self, f: SourceFile, pos: int, name: str) -> Definition | None:
        """The definition of ``name`` in the same class closest before ``pos`` (else after)."""
        candidates = f.definitions.get(name, [])
        if not candidates:
            return None
        fn = f.function_at(pos)
        pool: list[Definition] = []
        cls = f.class_at(pos)
        while cls is not None and not pool:            # this class's, else an enclosing class's
            pool = [d for d in candidates if f.class_at(d.pos) == cls]
            cls = f.classes[cls].outer
        if not pool:
            pool = [d for d in candidates if f.class_at(d.pos) is None]
        if not pool:
            return None
        if fn is not None:
            local = [d for d in pool if fn.start <= d.pos <= fn.end and d.pos < pos]
            if local:
                return max(local, key=lambda d: d.pos)
        members = [d for d in pool if function_name(f, d.pos) == CONSTRUCTOR]
        pool = members or pool
        before = [d for d in pool if d.pos < pos]
        return max(before, key=lambda d: d.pos) if before else min(pool, key=lambda d: d.pos)

    def parameter_values(self, f: SourceFile, pos: int, name: str, depth: int) -> list[Value]:
        """The values a parameter ``name`` (of the enclosing function or class) is given at its call sites."""
        fn = f.function_at(pos)
        if fn is not None and fn.name != CONSTRUCTOR:
            index = next((i for i, p in enumerate(fn.params) if p.name == name), -1)
            if index >= 0:
                return self.call_site_values(f, fn.name, fn.params, name, depth, new=False)
        cls_index = f.class_at(pos)
        while cls_index is not None:
            cls = f.classes[cls_index]
            for params in cls.params:
                if any(p.name == name for p in params):
                    return (self.call_site_values(f, cls.name, params, name, depth, new=True)
                            or self.subclass_values(cls.name, params, name, depth))
            cls_index = cls.outer
        return []

    def subclass_values(self, parent: str, params: list[Param], name: str, depth: int) -> list[Value]:
        """What the subclasses pass for a parameter of an abstract class (never built with ``new``)."""
        out: list[Value] = []
        for path in sorted(self.files):
            sub_file = self.files[path]
            for sub in sub_file.classes:
                for parent_name, args in sub.parents:
                    if parent_name != parent or args is None:
                        continue
                    spans = split_args(sub_file, (args[0] + 1, args[1]))
                    span = match_arguments(sub_file, params, spans).get(name)
                    if span is None:
                        continue
                    value = self.value(sub_file, span, {}, depth + 1)
                    if value is not None and value not in out:
                        out.append(value)
        return out

    def call_site_values(self, f: SourceFile, callee: str, params: list[Param], name: str,
                         depth: int, new: bool) -> list[Value]:
        out: list[Value] = []
        files = [f] + [self.files[p] for p in sorted(self.files) if self.files[p] is not f]
        for caller in files:
            sites = caller.new_sites(callee) if new else caller.call_sites(callee)
            for paren in sites:
                arg_spans = split_args(caller, (paren + 1, caller.match[paren]))
                if not caller.scala and len(arg_spans) != len(params):
                    continue
                span = match_arguments(caller, params, arg_spans).get(name)
                if span is None:
                    continue
                value = self.value(caller, span, {}, depth + 1)
                if value is None:
                    value = Text((Piece(caller.source(span), True),))
                if value not in out:
                    out.append(value)
            if out and not new:
                break
        return out

    def inherited_value(self, f: SourceFile, pos: int, name: str, depth: int) -> Value | None:
        """A field a parent class defines (its parameters bound to the ``extends`` arguments)."""
        cls_index = f.class_at(pos)
        return None if cls_index is None else self.parent_member(f, cls_index, name, {}, depth)

    def parent_member(self, f: SourceFile, index: int, name: str, bindings: Bindings,
                      depth: int) -> Value | None:
        if depth > MAX_DEPTH:
            return None
        for parent_name, args in f.classes[index].parents:
            parent = self.find_class(parent_name, f)
            if parent is None or parent == (f, index):
                continue
            pf, pindex = parent
            parent_bindings = self.bind_arguments(f, args, parent, bindings, depth + 1)
            definition = self.own_definition(pf, pindex, name)
            if definition is not None:
                return self.value(pf, definition.rhs, parent_bindings, depth + 1)
            found = self.parent_member(pf, pindex, name, parent_bindings, depth + 1)
            if found is not None:
                return found
        return None

    # --- a log call's logger(s) and ident ------------------------------------------------------------
    def targets(self, f: SourceFile, call: CallSite) -> tuple[list[tuple[str, str]], bool]:
        """[(logger, ident template)] of a call, and whether its message is slf4j-formatted."""
        if call.kind == "throw":
            return [(call.exception or self.error_exception(call.error), "")], False
        cls_index = f.class_at(call.pos)
        if call.receiver is None:
            return self.trait_targets(f, cls_index, with_ident=True), False
        receiver_text = f.source(call.receiver)
        fn = f.function_at(call.pos)
        param = next((p for p in (fn.params if fn else []) if p.name == receiver_text), None)
        if receiver_text in ("logger", "this.logger", "this . logger") and param is None \
                and not f.definitions.get("logger") and f.scala:
            return self.trait_targets(f, cls_index, with_ident=False), True
        values = self.receiver_values(f, call)
        out: list[tuple[str, str]] = []
        slf4j = False
        for value in values:
            if isinstance(value, StateLogger):
                out.append((STATE_CHANGE_LOGGER, self.state_logger_ident(value)))
            elif isinstance(value, LoggerValue) and value.name == RUNTIME_CLASS:
                out.extend((name, render(value.ident)) for name, _ in
                           self.trait_targets(f, cls_index, with_ident=False))
                slf4j = True
            elif isinstance(value, LoggerValue):
                out.append((value.name, render(value.ident)))
                slf4j = True
        if not out and re.fullmatch(r"\w+", receiver_text):
            level = f.tokens[call.pos].text
            out.extend(self.instance_targets(self.declared_type(f, call.pos, receiver_text), level))
        if not out and (re.search(r"stateChangeLog|stateLogger", receiver_text)
                        or (param is not None and "StateChangeLogger" in param.type)):
            out.append((STATE_CHANGE_LOGGER, ""))
        return sorted(set(out)), slf4j

    def instance_targets(self, type_text: str, level: str, depth: int = 0) -> list[tuple[str, str]]:
        """``log.info(..)`` on a parameter ``log: UnifiedLog``: that class's own Logging; on a
        trait without Logging, what its implementations' ``def info(..)`` delegate to."""
        m = re.match(r"[A-Za-z_]\w*", type_text)
        found = self.find_class(m.group()) if m else None
        if found is None or depth > 3:
            return []
        if self.has_logging(found[0], found[1], 0):
            return self.trait_targets(found[0], found[1], with_ident=True)
        out: list[tuple[str, str]] = []
        for path in sorted(self.files):
            sub_file = self.files[path]
            for index, sub in enumerate(sub_file.classes):
                if any(name == found[0].classes[found[1]].name for name, _ in sub.parents):
                    out.extend(self.delegated_targets(sub_file, index, level, depth))
        return sorted(set(out))

    def delegated_targets(self, f: SourceFile, index: int, level: str, depth: int) -> list[tuple[str, str]]:
        """In class ``index``, ``def <level>(..) = x.<level>(..)``: the targets of ``x``'s type."""
        out: list[tuple[str, str]] = []
        for fn in f.functions:
            if fn.name != level or f.class_at(fn.start) != index:
                continue
            for call in f.calls:
                if call.kind == "log" and call.receiver and fn.start <= call.pos <= fn.end:
                    receiver = f.source(call.receiver)
                    type_name = self.declared_type(f, call.pos, receiver) if re.fullmatch(r"\w+", receiver) else ""
                    out.extend(self.instance_targets(type_name, level, depth + 1))
        return out

    def trait_targets(self, f: SourceFile, cls_index: int | None, with_ident: bool) -> list[tuple[str, str]]:
        logging = self.logging_class(f, cls_index)
        if logging is None:
            return [(f.package or "?", "")]
        out: list[tuple[str, str]] = []
        for cf, cindex in self.concrete_classes(f, logging):
            ident = self.class_ident(cf, cindex) if with_ident else None
            out.append((self.logger_name(cf, cindex) or cf.classes[cindex].binary, render(ident or ())))
        return sorted(set(out))

    def logger_name(self, f: SourceFile, index: int, depth: int = 0) -> str | None:
        """A Scala class's ``override val/def loggerName = classOf[X].getName`` (or a string),
        its own or a parent's: the logger's name instead of the runtime class's."""
        if depth > MAX_DEPTH:
            return None
        own = self.own_definition(f, index, "loggerName")
        if own is not None:
            lo, hi = own.rhs
            text = f.source(own.rhs)
            m = re.fullmatch(r"classOf ?\[ ?([\w.]+) ?\] ?\. ?getName(?: ?\( ?\))?", text)
            if m:
                return self.class_fqn(f, m.group(1))
            if hi - lo == 1 and f.tokens[lo].kind == "str" and not any(p.field for p in f.tokens[lo].pieces):
                return "".join(p.text for p in f.tokens[lo].pieces)
            return None
        for name, _ in f.classes[index].parents:
            parent = self.find_class(name, f)
            if parent is not None and parent != (f, index):
                found = self.logger_name(parent[0], parent[1], depth + 1)
                if found is not None:
                    return found
        return None

    def receiver_values(self, f: SourceFile, call: CallSite) -> list[Value]:
        assert call.receiver is not None
        lo, hi = call.receiver
        toks = f.tokens
        root = toks[lo + 2].text if toks[lo].text == "this" and hi - lo >= 3 else toks[lo].text
        if hi - lo == 1 or (toks[lo].text == "this" and hi - lo == 3):
            definition = self.nearest_definition(f, call.pos, root)
            if definition is None or self.is_self_assignment(f, definition):
                values = self.parameter_values(f, call.pos, root, 0)
                if values:
                    return values
        value = self.value(f, call.receiver, {}, 0)
        if hi - lo == 1 and (value is None or (isinstance(value, LoggerValue) and not value.ident)):
            value = self.context_logger(f, call.pos, root) or value
        return [value] if value is not None else []

    def context_logger(self, f: SourceFile, pos: int, name: str) -> Value | None:
        """A Java ``log = logContext.logger(X.class)`` whose LogContext comes from the creator."""
        definition = self.nearest_definition(f, pos, name)
        if definition is None:
            return None
        text = f.source(definition.rhs)
        m = re.fullmatch(r"(\w+) ?\. ?logger ?\( ?(.+?) ?\)", text)
        if not m:
            return None
        ident = self.creator_log_context(top_class_name(f, pos)) or ()
        args = [(definition.rhs[0] + 4, definition.rhs[1] - 1)]
        return self.logger_value(f, args, ident) if f.tokens[args[0][0] - 1].text == "(" else None

    def creator_log_context(self, class_name: str, depth: int = 0) -> Pieces | None:
        """The prefix of the ``new LogContext(..)`` of the scanned file that constructs
        ``class_name`` (``new C(..)`` or ``new C.Builder()``); that file's own creator's when it
        only passes a LogContext on."""
        if depth > 3 or not class_name:
            return None
        for path in sorted(self.files):
            caller = self.files[path]
            if any(cls.name == class_name for cls in caller.classes):
                continue                        # its own Builder's default LogContext
            sites = caller.new_sites(class_name) + [
                p for p in caller.new_sites("Builder") if p >= 3 and caller.tokens[p - 3].text == class_name]
            if not sites:
                continue
            for paren in caller.new_sites("LogContext"):
                value = self.value(caller, (paren - 2, caller.match[paren] + 1), {}, 0)
                if isinstance(value, LogCtx) and value.prefix:
                    return value.prefix
            outer = self.creator_log_context(top_class_name(caller, sites[0]), depth + 1)
            if outer:
                return outer
        return None

    def state_logger_ident(self, value: StateLogger) -> str:
        """The ident the release's StateChangeLogger class builds for ``value``."""
        if value.legacy:
            return ""
        found = self.find_class("StateChangeLogger")
        if found is None:
            return ""
        sf, index = found
        bindings: Bindings = {}
        params = [p.name for p in (sf.classes[index].params[0] if sf.classes[index].params else [])]
        if len(params) >= 3:
            if value.broker is not None:
                bindings[params[0]] = Text((Piece(value.broker, True),), put_in=True)
            if value.controller is not None:
                bindings[params[1]] = Flag(value.controller)
            bindings[params[2]] = Opt(value.epoch)
        own = self.own_definition(sf, index, "logIdent")
        if own is None:
            return ""
        text = self.value(sf, own.rhs, bindings, 0)
        return render(text.pieces) if isinstance(text, Text) else ""


def function_name(f: SourceFile, pos: int) -> str:
    """The enclosing function's name (the class body, a constructor: ``<init>``)."""
    fn = f.function_at(pos)
    return fn.name if fn else CONSTRUCTOR


def top_class_name(f: SourceFile, pos: int) -> str:
    index = f.class_at(pos)
    while index is not None and f.classes[index].outer is not None:
        index = f.classes[index].outer
    return "" if index is None else f.classes[index].name


def option_none_case(f: SourceFile, span: Span) -> Span | None:
    """``opt match { case None => a ... }``: the tokens of ``a`` (read as the broker's default,
    an unset option - e.g. no thread-name prefix)."""
    lo, hi = span
    toks = f.tokens
    at = next((k for k in range(lo, hi - 1) if toks[k].text == "match" and toks[k + 1].text == "{"
               and f.enclosing[k] == f.enclosing[lo]), -1)
    if at < 0 or f.match[at + 1] < 0:
        return None
    brace, close = at + 1, f.match[at + 1]
    cases = [k for k in range(brace + 1, close) if toks[k].text == "case" and f.enclosing[k] == brace]
    for index, k in enumerate(cases):
        if toks[k + 1].text == "None" and toks[k + 2].text == "=>":
            end = cases[index + 1] if index + 1 < len(cases) else close
            return (k + 3, end)
    return None


def split_named(f: SourceFile, span: Span) -> tuple[str, Span]:
    """``name = expr`` (a Scala named argument) -> (name, expr span); else ("", span)."""
    lo, hi = span
    if hi - lo >= 3 and f.tokens[lo].kind == "id" and f.tokens[lo + 1].text == "=":
        return f.tokens[lo].text, (lo + 2, hi)
    return "", span


def match_arguments(f: SourceFile, params: list[Param], args: list[Span]) -> dict[str, Span]:
    out: dict[str, Span] = {}
    names = [p.name for p in params]
    for index, span in enumerate(args):
        name, span = split_named(f, span) if f.scala else ("", span)
        if name in names:
            out[name] = span
        elif not name and index < len(names):
            out[names[index]] = span
    return out


# ============================================================================================
# Releases: reading trees from git (or a directory)
# ============================================================================================


@dataclass(frozen=True, slots=True)
class Release:
    label: str
    ref: str                          # a git ref, or a directory for --tree
    commit: str = ""
    note: str = ""
    directory: bool = False


class GitReader:
    """Reads refs, listings and blobs of a bare repository (one ``cat-file --batch`` process)."""

    def __init__(self, gitdir: str) -> None:
        self.gitdir = gitdir
        self._batch: subprocess.Popen[bytes] | None = None

    def run(self, *args: str, check: bool = True) -> str:
        result = subprocess.run(["git", "-C", self.gitdir, *args], capture_output=True, check=False)
        if check and result.returncode != 0:
            raise RuntimeError(f"git {' '.join(args)}: {result.stderr.decode(errors='replace')}")
        return result.stdout.decode("utf-8", errors="replace")

    def commit(self, ref: str) -> str:
        return self.run("rev-parse", "--verify", "--quiet", ref + "^{commit}", check=False).strip()

    def listing(self, ref: str) -> dict[str, str]:
        """path -> blob id of every file at ``ref``."""
        out: dict[str, str] = {}
        for line in self.run("ls-tree", "-r", "--full-tree", ref).splitlines():
            meta, _, path = line.partition("\t")
            parts = meta.split()
            if len(parts) == 3 and parts[1] == "blob":
                out[path] = parts[2]
        return out

    def grep_files(self, ref: str, pattern: str) -> set[str]:
        text = self.run("grep", "-l", "-E", pattern, ref, "--", "*.scala", "*.java", check=False)
        return {line.split(":", 1)[1] for line in text.splitlines() if ":" in line}

    def blob(self, blob_id: str) -> str:
        if self._batch is None:
            self._batch = subprocess.Popen(["git", "-C", self.gitdir, "cat-file", "--batch"],
                                           stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert self._batch.stdin is not None and self._batch.stdout is not None
        self._batch.stdin.write(blob_id.encode() + b"\n")
        self._batch.stdin.flush()
        header = self._batch.stdout.readline().split()
        if len(header) < 3:
            raise RuntimeError(f"cannot read blob {blob_id}")
        data = self._batch.stdout.read(int(header[2]))
        self._batch.stdout.read(1)
        return data.decode("utf-8", errors="replace")

    def close(self) -> None:
        if self._batch is not None:
            assert self._batch.stdin is not None
            self._batch.stdin.close()
            self._batch.wait()
            self._batch = None


def default_releases(git: GitReader) -> tuple[list[Release], list[str]]:
    """Every final release (or its stand-in) and trunk; and what was skipped."""
    out: list[Release] = []
    skipped: list[str] = []
    for label in FINAL_RELEASES:
        for ref in (f"refs/tags/{label}",) + SUBSTITUTES.get(label, ()):
            commit = git.commit(ref)
            if commit:
                out.append(Release(label, ref, commit, describe_ref(git, label, ref, commit)))
                break
        else:
            skipped.append(label)
    commit = git.commit(TRUNK[1])
    if commit:
        out.append(Release(TRUNK[0], TRUNK[1], commit, describe_ref(git, TRUNK[0], TRUNK[1], commit)))
    return out, skipped


def describe_ref(git: GitReader, label: str, ref: str, commit: str) -> str:
    """What a stand-in ref is: its date and the version its gradle.properties declares."""
    if ref == f"refs/tags/{label}":
        return ""
    date = git.run("log", "-1", "--format=%cs", commit).strip()
    version = re.search(r"^version=(\S+)", git.run("show", f"{commit}:gradle.properties", check=False), re.M)
    declared = version.group(1) if version else "?"
    what = "branch" if (label, ref) == TRUNK else "stand-in:"
    return f"{what} {ref} at {commit[:12]} ({date}), gradle.properties version={declared}"


def select_releases(requested: str | None, defaults: list[Release], git: GitReader) -> list[Release]:
    if not requested:
        return defaults
    by_label = {r.label: r for r in defaults}
    out: list[Release] = []
    for item in requested.split(","):
        item = item.strip()
        if not item:
            continue
        label, _, ref = item.partition("=")
        if ref:
            commit = git.commit(ref)
            if not commit:
                raise SystemExit(f"no commit for {ref}")
            out.append(Release(label, ref, commit, f"given: {ref}"))
        elif label in by_label:
            out.append(by_label[label])
        else:
            raise SystemExit(f"unknown release {label} (give LABEL=REF)")
    return out


def wanted(path: str, state_change: set[str]) -> str | None:
    """``inventory``, ``support`` or None for a path of a tree."""
    if path == ERRORS_FILE:
        return "support"
    m = SOURCE_PATH.match(path)
    if not m:
        return None
    base = m.group("base")
    if base in CLASS_FILES or path in state_change:
        return "inventory"
    if base in SUPPORT_FILES:
        return "support"
    return None


class SourceCache:
    """Parsed files by content, kept from one release to the next (releases share most files)."""

    def __init__(self) -> None:
        self.previous: dict[tuple[str, str], SourceFile] = {}
        self.current: dict[tuple[str, str], SourceFile] = {}

    def get(self, path: str, key: str, load: Callable[[], str]) -> SourceFile:
        item = (path, key)
        found = self.current.get(item) or self.previous.get(item)
        if found is None:
            found = SourceFile(path, load())
        self.current[item] = found
        return found

    def next_release(self) -> None:
        self.previous, self.current = self.current, {}


def git_tree(git: GitReader, release: Release, cache: SourceCache) -> tuple[Tree, dict[str, str], Fingerprint]:
    listing = git.listing(release.commit)
    state_change = git.grep_files(release.commit, STATE_CHANGE_MARK.pattern)
    roles = {p: r for p in sorted(listing) if (r := wanted(p, state_change))}
    files = {p: cache.get(p, listing[p], functools.partial(git.blob, listing[p])) for p in roles}
    fingerprint = tuple((p, listing[p]) for p in roles)
    return Tree(files, [p for p in roles if roles[p] == "inventory"]), roles, fingerprint


Fingerprint = tuple[tuple[str, str], ...]       # (path, content id) of every file read


def directory_tree(root: Path, cache: SourceCache) -> tuple[Tree, dict[str, str], Fingerprint]:
    texts: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if path.is_file() and (SOURCE_PATH.match(rel) or rel == ERRORS_FILE):
            texts[rel] = path.read_text(encoding="utf-8", errors="replace")
    state_change = {p for p, t in texts.items() if STATE_CHANGE_MARK.search(t)}
    roles = {p: r for p in sorted(texts) if (r := wanted(p, state_change))}
    digests = {p: hashlib.sha1(texts[p].encode()).hexdigest() for p in roles}
    files = {p: cache.get(p, digests[p], functools.partial(str, texts[p])) for p in roles}
    return Tree(files, [p for p in roles if roles[p] == "inventory"]), roles, tuple(digests.items())


# ============================================================================================
# Observations and rows
# ============================================================================================


@dataclass(frozen=True, slots=True)
class Observation:
    template: str
    level: str
    logger: str
    cls: str
    ident: str
    function: str
    file: str
    kind: str


def observe(tree: Tree) -> Iterable[Observation]:
    for path in tree.inventory:
        f = tree.files[path]
        for call in f.calls:
            targets, slf4j = tree.targets(f, call)
            if not targets:
                continue                       # a method named like a level on something else
            if call.kind == "throw":
                call = tree.message_argument_first(call)
            template, readable = read_message(f, call, slf4j, tree.constant_text)
            if not call.thrown and not readable:
                continue                       # an exception made with a message not read here
            cls_index = f.class_at(call.pos)
            cls = f.classes[cls_index].binary if cls_index is not None else (f.package or "?")
            fn = f.function_at(call.pos)
            function = fn.name if fn else CONSTRUCTOR
            for logger, ident in targets:
                yield Observation(template, call.level, logger, cls, ident, function, path, call.kind)


@dataclass(slots=True)
class Seen:
    releases: list[int] = field(default_factory=list)
    files: dict[int, str] = field(default_factory=dict)
    functions: dict[int, set[str]] = field(default_factory=lambda: defaultdict(set))


Key = tuple[str, str, str, str, str, str]     # template, level, logger, class, ident, kind


def collect(observations: Iterable[Observation], release: int, seen: dict[Key, Seen]) -> None:
    for ob in observations:
        key = (ob.template, ob.level, ob.logger, ob.cls, ob.ident, ob.kind)
        entry = seen.setdefault(key, Seen())
        if not entry.releases or entry.releases[-1] != release:
            entry.releases.append(release)
            entry.files[release] = ob.file
        else:
            entry.files[release] = min(entry.files[release], ob.file)
        entry.functions[release].add(ob.function)


def runs(indices: list[int]) -> list[tuple[int, int]]:
    """Contiguous runs of sorted release indices."""
    out: list[tuple[int, int]] = []
    for index in indices:
        if out and out[-1][1] == index - 1:
            out[-1] = (out[-1][0], index)
        else:
            out.append((index, index))
    return out


def build_rows(seen: dict[Key, Seen], labels: list[str]) -> list[dict[str, str]]:
    rows: list[tuple[tuple[str, str, str, int, str, str, str, str], dict[str, str]]] = []
    for key, entry in seen.items():
        template, level, logger, cls, ident, kind = key
        for first, last in runs(entry.releases):
            row = {
                "level": level, "logger": logger, "class": cls,
                "function": "|".join(sorted(entry.functions[last])),
                "template": template, "ident": ident, "first": labels[first], "last": labels[last],
                "file": entry.files[last], "kind": kind,
            }
            order = (entry.files[first], cls, template, first, level, logger, ident, kind)
            rows.append((order, row))
    rows.sort(key=lambda item: item[0])
    return [row for _, row in rows]


def kept(row: dict[str, str]) -> tuple[str, str, str, str]:
    """What a kept column belongs to: the call's level, logger, class and template (whatever its
    releases; one call printed by two loggers - a fetcher's, an alter-log-dirs thread's - is two)."""
    return row["level"], row["logger"], row["class"], row["template"]


def carry_over(path: Path, rows: list[dict[str, str]]) -> int:
    """Each new row's disposition and note from the CSV already at ``path`` (the same level,
    logger, class and template); the count of rows left without one."""
    old: dict[tuple[str, str, str, str], dict[str, str]] = {}
    if path.is_file():
        with path.open(encoding="utf-8", newline="") as stream:
            for row in csv.DictReader(stream):
                if row.get("disposition"):
                    old.setdefault(kept(row), {name: row.get(name) or "" for name in KEPT_COLUMNS})
    missing = 0
    for row in rows:
        row.update(old.get(kept(row), {name: "" for name in KEPT_COLUMNS}))
        missing += not row["disposition"]
    return missing


def write_csv(path: Path, rows: list[dict[str, str]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=CSV_COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def write_files_list(path: Path, scanned: list[tuple[Release, dict[str, str]]], skipped: list[str],
                     fingerprints: list[tuple[tuple[str, str], ...]], options: str) -> None:
    lines = ["# Files read per release by tools/kafka_log_inventory.py" + (f" ({options})." if options else "."),
             "# Columns (tab-separated): release, ref, path, role (inventory: its calls are listed;",
             "# support: read to follow an inherited log ident, a message constant or the exception",
             "# an Errors constant builds). Refs read:"]
    for index, (release, _) in enumerate(scanned):
        where = "directory" if release.directory else f"commit {release.commit}"
        notes = [release.note] if release.note else []
        if index > 0 and fingerprints[index] == fingerprints[index - 1] and not release.directory:
            notes.append(f"every file read is the same as at {scanned[index - 1][0].label}")
        note = "".join(f" - {n}" for n in notes)
        lines.append(f"#   {release.label}\t{release.ref}\t{where}{note}")
    for label in skipped:
        lines.append(f"#   {label}\tskipped: no tag and no stand-in ref in the snapshot")
    lines.append("release\tref\tpath\trole")
    for release, roles in scanned:
        for p in sorted(roles):
            lines.append(f"{release.label}\t{release.ref}\t{p}\t{roles[p]}")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


# ============================================================================================
# Command line
# ============================================================================================


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kafka", required=True, help="Kafka's bare git directory")
    parser.add_argument("--out", default="data/explain/kafka-log-calls.csv", help="the CSV to write")
    parser.add_argument("--releases", help="comma-separated labels (default: every final release "
                        "0.9.0.0 .. 3.9.1 and trunk); LABEL=REF reads any ref")
    parser.add_argument("--tree", action="append", default=[], metavar="LABEL=DIR",
                        help="an extra source tree on disk, scanned like a release (after the others)")
    return parser.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    started = time.monotonic()
    git = GitReader(args.kafka)
    defaults, skipped = default_releases(git)
    releases = select_releases(args.releases, defaults, git)
    for item in args.tree:
        label, _, directory = item.partition("=")
        if not directory or not Path(directory).is_dir():
            raise SystemExit(f"--tree wants LABEL=DIR, got {item}")
        releases.append(Release(label, directory, note=tree_note(Path(directory)), directory=True))
    cache = SourceCache()
    seen: dict[Key, Seen] = {}
    scanned: list[tuple[Release, dict[str, str]]] = []
    fingerprints: list[Fingerprint] = []
    problems: list[str] = []
    for index, release in enumerate(releases):
        if release.directory:
            tree, roles, fingerprint = directory_tree(Path(release.ref), cache)
        else:
            tree, roles, fingerprint = git_tree(git, release, cache)
        fingerprints.append(fingerprint)
        collect(observe(tree), index, seen)
        scanned.append((release, roles))
        problems.extend(f"{release.label} {p}: {m}" for p in tree.inventory for m in tree.files[p].problems)
        cache.next_release()
        print(f"{release.label}: {len(tree.inventory)} files", file=sys.stderr)
    git.close()
    rows = build_rows(seen, [r.label for r in releases])
    out = Path(args.out)
    missing = carry_over(out, rows)
    write_csv(out, rows)
    if missing:
        print(f"{missing} rows have no disposition yet: give each one (a format:<id> of hwlib/explain/formats.py, "
              "informational, outside-model or ignored, with a note) - tests/explain/test_inventory.py checks them",
              file=sys.stderr)
    write_files_list(out.with_name(out.stem + ".files.txt"), scanned, skipped if not args.releases else [],
                     fingerprints, options_text(args))
    report(rows, releases, skipped, problems, time.monotonic() - started)
    return 0


def options_text(args: argparse.Namespace) -> str:
    """The options that chose what was read (for the side file)."""
    parts = [f"--releases {args.releases}"] if args.releases else []
    parts += [f"--tree {item}" for item in args.tree]
    return " ".join(parts)


def tree_note(directory: Path) -> str:
    note = directory / "SOURCE.txt"
    return note.read_text(encoding="utf-8").strip().replace("\n", "; ") if note.is_file() else ""


def report(rows: list[dict[str, str]], releases: list[Release], skipped: list[str],
           problems: list[str], seconds: float) -> None:
    levels: dict[str, int] = defaultdict(int)
    for row in rows:
        levels[row["level"]] += 1
    bad = [row for row in rows if row["template"].startswith("UNPARSED")]
    print(f"rows: {len(rows)}; per level: {dict(sorted(levels.items()))}", file=sys.stderr)
    print(f"releases scanned: {len(releases)}; skipped: {skipped or 'none'}", file=sys.stderr)
    print(f"unparsed rows: {len(bad)}; lexer problems: {len(problems)}", file=sys.stderr)
    for row in bad[:5]:
        print(f"  {row['file']}: {row['template'][:120]}", file=sys.stderr)
    for problem in problems[:5]:
        print(f"  {problem}", file=sys.stderr)
    print(f"time: {seconds:.1f}s", file=sys.stderr)


if __name__ == "__main__":
    raise SystemExit(main())

"""A message template as a Kafka logging call writes it: found anywhere in a line, a cut line's prefix, a near miss.

A ``Template`` is text with ``{field}`` for each value (``str.format``'s syntax: ``{{`` is a
brace). ``search`` finds it anywhere in a message - people paste a message with, without or
with someone else's prefix - and gives its fields, where it is and how many of its literal
characters it matched (the longest match wins among formats). ``search_cut`` reads a message
that ends inside the template (a truncated last line, a line cut at a column, a message ending
in ``...``): the pieces it holds, the value cut short left out. ``near`` says, of a message
that holds the template's longest literal piece but does not match, which piece did not fit.

Each field is one bounded character class (``FIELDS``; numbers ``NUMBER``) with no nested
repetition, a number field is never followed by a digit and a template starting with a field
starts at a word's start: a search costs at most the line's length times a field's width.
"""

from __future__ import annotations

import functools
import re
import string
from collections.abc import Callable
from dataclasses import dataclass

#: a partition as ``TopicPartition`` prints it (``topic-0``), and as the 0.9 - 0.11
#: ``TopicAndPartition`` does (``[topic,0]``) - any characters, as people redact them (``X-N``,
#: ``[XXXXXXX,1]``); each format has the form its release printed (the form tells releases apart)
PARTITION_NEW = r"[^\s\[\](),]{1,249}"
PARTITION_OLD = r"\[[^\s\[\],]{1,249}, ?[^\s\[\],]{1,12}\]"

#: each field's pattern (a bounded class; no nested repetition)
FIELDS = {
    "ids": r"[0-9,]{0,200}",
    "old": r"[0-9,]{0,200}",
    "new": r"[0-9,]{0,200}",
    "isr": r"[0-9,]{0,200}",
    "isr_list": r"[0-9, ]{0,200}",
    "adding": r"[0-9, ]{0,200}",
    "removing": r"[0-9, ]{0,200}",
    "ctl": r"\[[A-Za-z ]{1,60}(?:id=)?\d{1,10}\][:,]? ",
    "state": r"[A-Za-z]{1,40}",
    "to_state": r"[A-Za-z]{1,40}",
    "topic_id": r"[^ ]{1,100}",
    "under": r"(?:\(under-min-isr\))?",
    "prev_leader": r"[^ ]{1,30}",
    "tp": PARTITION_NEW,
    "tpb": PARTITION_OLD,
    "log": PARTITION_NEW,
    "topic": r"[^\s\[\](),]{1,249}",
    "dir": r"[^\]]{0,4096}",
    "rest": r"[^\n]{0,4096}",
    "cause": r"[a-z ]{1,60}",
    "diff": r"[^\n]{0,4096}",
    "rest2": r"[A-Z_]{1,40}",
    "strategy": r"[A-Za-z]{1,80}(?:\([a-z]{1,10}\))?",
    "file_kind": r"(?:log|offset index|time index|transaction index)",
    "seg_path": r"/[^\s]{0,4095}",
    "segment": r"[0-9 :\-]{1,60}",
    # a LogOffsetMetadata as its toString prints it: (offset=N segment=[B:P]) 2.0 - 3.4,
    # (offset=Nsegment=[B:P]) 3.5, (offset=N, segment=[B:P]) from 3.6 - the offset is the value
    "hw_meta": r"\(offset=-?\d{1,19},? ?segment=\[-?\d{1,19}:-?\d{1,19}\]\)",
    "old_hw_meta": r"\(offset=-?\d{1,19},? ?segment=\[-?\d{1,19}:-?\d{1,19}\]\)",
    # an ISR with each member's broker epoch: BrokerState(brokerId=N, brokerEpoch=E), ... (3.5+)
    "isr_states": r"[A-Za-z0-9=(), \-]{0,4000}",
}
#: fields holding a number (offsets, epochs, broker ids, counts): every field not in FIELDS
NUMBER = r"-?\d{1,19}"
#: fields whose text holds their value in another form, and how to read it
VALUES: dict[str, Callable[[str], str]] = {
    "hw_meta": lambda text: text[len("(offset="):].split("segment", 1)[0].rstrip(", "),
    "old_hw_meta": lambda text: text[len("(offset="):].split("segment", 1)[0].rstrip(", "),
    "isr_states": lambda text: ",".join(re.findall(r"brokerId=(\d{1,10})", text)),
}
#: Kafka's ``\n`` and ``\t`` in a message read from its code (the inventory keeps them as written)
ESCAPES = re.compile(r"\\[nt]")
#: a run of spaces and tabs
SPACES = re.compile(r"[ \t]{2,}|\t")
#: a generic template's value inside an ident (an ident is bracketed: a value holds no bracket)
GENERIC = r"[^\[\]]{0,300}"
#: what the start of a template that opens with a field must follow: the message's start or a
#: separator (a field never starts inside a word)
WORD_START = r"(?:(?<=^)|(?<=[\s\[\]():,|=]))"
#: the fewest literal characters a cut message must hold in full (beside the longest piece)
CUT_LITERAL = 24


@dataclass(frozen=True)
class Found:
    """Where a template was found in a message: its fields (a value cut short is left out),
    the span, the literal characters matched, and whether the message ended inside it."""

    fields: dict[str, str]
    start: int
    end: int
    literal: int
    cut: bool = False


def _field_pattern(name: str) -> str:
    return FIELDS.get(name, NUMBER)


def _after_field(name: str) -> str:
    """What may not follow a field's value: a number is never followed by a digit."""
    return r"(?!\d)" if name not in FIELDS or name.endswith("_meta") else ""


class Template:
    """One message's text (see the module docstring). A ``generic`` template's fields are any
    text (a message read from Kafka's code, its values any expression): it is found by its
    literal pieces in order, each where it first occurs - linear in the message - and a value
    is the text between two pieces."""

    def __init__(self, text: str, generic: bool = False) -> None:
        self.text = ESCAPES.sub(" ", text) if generic else text
        self.generic = generic

    def __repr__(self) -> str:
        return f"Template({self.text!r})"

    @functools.cached_property
    def pieces(self) -> list[tuple[str, str | None]]:
        """The text as (literal, field name or None), as ``str.format`` reads it; a generic
        template's literals with each run of spaces as one (a message's line breaks and tabs
        arrive as spaces, or as lines a paste joins with one)."""
        pieces = [(literal, name) for literal, name, _, _ in string.Formatter().parse(self.text)]
        if not self.generic:
            return pieces
        out = [(SPACES.sub(" ", literal), name) for literal, name in pieces]
        if out:
            out[0] = (out[0][0].lstrip(), out[0][1])
            out[-1] = (out[-1][0].rstrip(), out[-1][1])
        return out

    @functools.cached_property
    def literal(self) -> int:
        """How many literal characters the template has."""
        return sum(len(literal) for literal, _ in self.pieces)

    @functools.cached_property
    def anchor(self) -> str:
        """The longest literal piece: a message without it cannot match in full."""
        return max((literal for literal, _ in self.pieces), key=len)

    @functools.cached_property
    def head(self) -> str:
        """The first literal piece that is not empty (a cut message holds it in full)."""
        return next((literal for literal, _ in self.pieces if literal), "")

    def fields(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(name for _, name in self.pieces if name is not None))

    def expressions(self, groups: dict[str, str | None]) -> dict[str, str]:
        """A generic template's match groups (``g<place>``) by the expression of each value."""
        out = {}
        for key, value in groups.items():
            if value is not None and key.startswith("g") and key[1:].isdigit():
                name = self.pieces[int(key[1:])][1]
                if name is not None:
                    out[name] = value
        return out

    def _regex(self, count: int) -> str:
        """The pattern of the first ``count`` pieces (each piece a literal and maybe a field)."""
        out = []
        seen: set[str] = set()
        for index, (literal, name) in enumerate(self.pieces[:count]):
            if index == 0 and not literal and name is not None:
                out.append(WORD_START)
            out.append(re.escape(literal))
            if name is not None and self.generic:             # a group named by its place (``expressions``)
                out.append(f"(?P<g{index}>{GENERIC})")
            elif name is not None:
                body = _field_pattern(name)
                out.append(f"(?P<{name}>{body})" if name not in seen else f"(?P={name})")
                out.append(_after_field(name))
                seen.add(name)
        return "".join(out)

    @functools.cached_property
    def pattern(self) -> re.Pattern[str]:
        body = self._regex(len(self.pieces))
        if self.text and (self.text[-1].isalnum() or self.text[-1] == "_") and self.pieces[-1][1] is None:
            body += r"(?![\w])"                    # a template ending in a word ends the word
        return re.compile(body)

    def search(self, message: str) -> Found | None:
        """The template anywhere in ``message`` (None: not there; a generic template reads a
        message with its runs of spaces made one - ``collapsed``)."""
        if self.anchor not in message:
            return None
        if self.generic:
            return self._scan(message, cut=False)
        match = self.pattern.search(message)
        if match is None:
            return None
        return Found(_values(match.groupdict()), match.start(), match.end(), self.literal)

    @functools.cache                # noqa: B019 - one cache per template, kept with it
    def _prefix(self, count: int) -> re.Pattern[str]:
        return re.compile(self._regex(count) + r"(?P<_tail>[^\n]{0,300})\Z")

    def search_cut(self, message: str) -> Found | None:
        """The template's first pieces ending ``message``, the message ending inside the next
        one: a literal it is a prefix of, or a value (left out, as it may be cut short). At
        least ``CUT_LITERAL`` literal characters and the first piece must be matched in full."""
        head = self.head[:CUT_LITERAL] if self.head else ""
        if head and head not in message:
            return None
        if self.generic:
            return self._scan(message, cut=True)
        pieces = self.pieces
        for count in range(len(pieces), 0, -1):
            matched = sum(len(literal) for literal, _ in pieces[:count])
            following = pieces[count][0] if count < len(pieces) else ""
            if matched + len(following) < min(CUT_LITERAL, self.literal):
                break
            match = self._prefix(count).search(message)
            if match is None:
                continue
            tail = match["_tail"]
            fields = {k: v for k, v in match.groupdict().items() if k != "_tail"}
            last_name = pieces[count - 1][1]
            if matched + len(tail) < min(CUT_LITERAL, self.literal):
                continue
            if count < len(pieces):
                if not following.startswith(tail) and not (not following and tail.strip() == tail):
                    continue
                if not tail and last_name is not None:
                    fields.pop(last_name, None)       # the value at the very end may be cut short
            elif tail:
                continue                              # the whole template, then more: not cut
            else:
                if last_name is not None:
                    fields.pop(last_name, None)
            return Found(_values(fields), match.start(), len(message), matched + len(tail), cut=True)
        return None

    def _scan(self, message: str, cut: bool) -> Found | None:
        """A generic template found by its literal pieces in order (each where it first occurs
        after the one before); ``cut``: the message may end inside a piece it begins, after at
        least ``CUT_LITERAL`` literal characters. A leading value is the word before the first
        piece, a trailing one the rest of the message."""
        pieces = [(literal, name) for literal, name in self.pieces]
        first = next((i for i, (literal, _) in enumerate(pieces) if literal), None)
        if first is None:                       # values alone: the whole message is the first
            names = [name for _, name in pieces if name is not None]
            return None if cut or not message.strip() else Found({names[0]: message.strip()}, 0, len(message), 0)
        start = message.find(pieces[first][0])
        if start < 0:
            return None
        fields: dict[str, str] = {}
        begin = start
        if first > 0 or (not pieces[0][0] and pieces[0][1] is not None):
            word = message.rfind(" ", 0, max(0, start - 1)) + 1
            if pieces[0][1] is not None:
                fields[pieces[0][1]] = message[word:start].strip()
                begin = word
        at, matched = start, 0
        for index in range(first, len(pieces)):
            literal, name = pieces[index]
            found = message.find(literal, at) if index > first else start
            if found < 0:
                rest = message[at:].strip()
                begun = len(rest) if literal.lstrip().startswith(rest) else 0   # the message ends inside this piece
                if not begun and pieces[index - 1][1] is not None:             # ... after the value before it
                    begun = _ends_with_start(rest, literal.lstrip())
                after_value = pieces[index - 1][1] is not None
                if cut and (begun or after_value) and matched + begun >= min(CUT_LITERAL, self.literal):
                    return Found(fields, begin, len(message), matched + begun, cut=True)
                return None
            previous = pieces[index - 1][1] if index > first else None
            if previous is not None:
                fields[previous] = message[at:found]
            at, matched = found + len(literal), matched + len(literal)
            if name is not None and index == len(pieces) - 1:
                fields[name] = message[at:]
                at = len(message)
        return Found(fields, begin, at, matched)

    def near(self, message: str) -> str | None:
        """Of a message holding the longest literal piece but not matching: which piece did
        not fit (None: the message does not look like this template)."""
        if self.generic or self.anchor not in message or len(self.anchor) < 12:
            return None
        pieces = self.pieces
        for count in range(len(pieces), 0, -1):
            if re.search(self._regex(count), message) is None:
                continue
            if count == len(pieces):
                return None
            literal, name = pieces[count]
            previous = pieces[count - 1][1]
            if previous is not None and literal:
                return f"the text after {{{previous}}} is not {literal[:40]!r}"
            if name is not None:
                return f"{{{name}}} does not parse"
            return f"the text differs at {literal[:40]!r}"
        literal, name = pieces[0]
        return f"{{{name}}} does not parse" if not literal and name else f"the text differs at {literal[:40]!r}"

    def render(self, **fields: object) -> str:
        return self.text.format(**fields)


def _ends_with_start(text: str, literal: str) -> int:
    """The length of the longest beginning of ``literal`` (a word or more: four characters at
    least) that ends ``text`` after a space; 0: none."""
    for size in range(len(literal) - 1, 3, -1):
        if text.endswith(literal[:size]) and text[:-size].endswith(" "):
            return size
    return 0


def collapsed(message: str) -> str:
    """``message`` with each run of spaces and tabs as one space (what a generic template reads)."""
    return SPACES.sub(" ", message)


def _values(groups: dict[str, str | None]) -> dict[str, str]:
    """A match's fields, each as its value (``VALUES``: an offset inside a LogOffsetMetadata)."""
    out = {}
    for name, text in groups.items():
        if text is None:
            continue
        convert = VALUES.get(name)
        out[name] = convert(text) if convert is not None else text
    return out

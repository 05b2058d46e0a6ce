"""Reading YAML input (scenarios, fault profiles, sweep specs, report parameters): one-line errors, hard limits.

One loader for every input, stricter than ``yaml.safe_load``:

- a duplicate key in a mapping is an error (YAML keeps the last one silently);
- aliases are allowed, but the document as expanded (every alias counted at its full size)
  may hold at most ``MAX_NODES`` values and nest at most ``MAX_DEPTH`` levels, so a
  400-byte "billion laughs" file cannot make a later ``str()`` or ``json.dumps`` run for
  minutes or exhaust memory;
- bytes that are not UTF-8 are an error naming the offset;
- each error is one line naming the file and, where YAML knows it, the line.
"""

from __future__ import annotations

from pathlib import Path

import yaml

#: values in a document, aliases expanded
MAX_NODES = 200_000
#: nesting of sequences and mappings
MAX_DEPTH = 64


class _Limit(yaml.YAMLError):
    def __init__(self, problem: str, mark) -> None:
        super().__init__(problem)
        self.problem = problem
        self.problem_mark = mark


class StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses duplicate keys and documents too large or deep once expanded."""

    def construct_mapping(self, node, deep=False):
        if isinstance(node, yaml.MappingNode):
            seen = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=True)
                try:
                    duplicate = key in seen
                    seen.add(key)
                except TypeError:       # an unhashable key: SafeConstructor says so below
                    continue
                if duplicate:
                    raise _Limit(f"duplicate key {key!r} (YAML would keep only the last)", key_node.start_mark)
        return super().construct_mapping(node, deep=deep)

    def get_single_node(self):
        node = super().get_single_node()
        if node is not None:
            _check_size(node)
        return node


def _check_size(root) -> None:
    """Counts the values of the document as expanded (an alias counts as its whole target)."""
    sizes: dict[int, int] = {}

    def size(node, depth: int) -> int:
        if depth > MAX_DEPTH:
            raise _Limit(f"nested deeper than {MAX_DEPTH} levels", node.start_mark)
        known = sizes.get(id(node))
        if known is not None:
            return known
        total = 1
        if isinstance(node, yaml.SequenceNode):
            total += sum(size(child, depth + 1) for child in node.value)
        elif isinstance(node, yaml.MappingNode):
            total += sum(size(k, depth + 1) + size(v, depth + 1) for k, v in node.value)
        if total > MAX_NODES:
            raise _Limit(f"more than {MAX_NODES:,} values once its aliases are expanded", node.start_mark)
        sizes[id(node)] = total
        return total

    size(root, 0)


def parse_yaml(text: str):
    """``text`` parsed by the strict loader (errors: ``yaml.YAMLError``)."""
    try:
        return yaml.load(text, Loader=StrictLoader)  # noqa: S506 - StrictLoader is a SafeLoader
    except RecursionError:
        raise _Limit(f"nested deeper than {MAX_DEPTH} levels", None) from None


def read_yaml(path: Path, error: type[Exception], field: str = ""):
    """The parsed content of ``path``; a malformed, oversized or non-UTF-8 file raises
    ``error`` naming the file and line (``field`` prefixes the message, e.g. ``"spec: "``)."""
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise error(f"{field}{path}: cannot read: {exc.strerror}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise error(f"{field}{path}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {exc.start})") from None
    try:
        return parse_yaml(text)
    except yaml.YAMLError as exc:
        raise error(f"{field}{path}:{describe_error(exc)}") from None


def describe_error(exc: yaml.YAMLError) -> str:
    """`` line 3: malformed YAML: duplicate key 'seed' ...`` for a YAML error."""
    mark = getattr(exc, "problem_mark", None)
    where = f" line {mark.line + 1}" if mark is not None else ""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    kind = "YAML refused" if isinstance(exc, _Limit) else "malformed YAML"
    return f"{where}: {kind}: {problem}"

"""The one parser of name lists (generations, faults, kinds): order, duplicates, errors."""

from __future__ import annotations

import pytest

from hwlib.util.names import parse_names

ALLOWED = ("hw", "kip101", "kip320")


def test_comma_text_and_lists_give_each_name_once_in_the_order_given():
    assert parse_names(" kip320, hw,,kip320 ", "protocols", ALLOWED) == ["kip320", "hw"]
    assert parse_names(["hw", " kip101", "hw"], "protocols", ALLOWED) == ["hw", "kip101"]


def test_an_unknown_name_is_one_line_naming_the_field_and_what_is_allowed():
    with pytest.raises(KeyError, match=r"protocols: 'kip9' is not a generation; allowed: hw, kip101, kip320"):
        parse_names("hw,kip9", "protocols", ALLOWED, "a generation", KeyError)


def test_no_name_is_an_error_unless_empty_is_allowed():
    with pytest.raises(ValueError, match="faults: name at least one of hw, kip101, kip320"):
        parse_names(" , ", "faults", ALLOWED)
    assert parse_names("", "faults", ALLOWED, empty=True) == []


def test_without_a_field_the_message_starts_with_the_name():
    with pytest.raises(ValueError, match=r"^'x' is not a name; allowed"):
        parse_names("x", "", ALLOWED)

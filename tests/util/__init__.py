"""Tests of the small helpers (hwlib/util/)."""

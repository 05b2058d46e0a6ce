"""Tests of the model checker (hwlib/check/)."""

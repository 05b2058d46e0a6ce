"""Tests of the engine (hwlib/engine/)."""

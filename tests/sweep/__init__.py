"""Tests of the Spark sweeps (hwlib/sweep/)."""

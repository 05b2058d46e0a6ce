"""Tests of the fault-sweep report (hwlib/report/)."""

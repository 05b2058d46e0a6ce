"""Tests of the anomaly checks (hwlib/anomalies/)."""

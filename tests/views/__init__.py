"""Tests of the steppers, explorer and notebooks (hwlib/views/, notebooks/)."""

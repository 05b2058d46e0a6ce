"""The anomaly checks, compiled: what is judged after every step - broker-internal and client-visible, one severity."""

from .. import compiled

compiled.extend(__path__, __name__)

from .checker import (  # noqa: E402  (after the build is on the path)
    EFFECT_NOTES,
    EFFECTS,
    KINDS,
    SAFETY,
    SEVERITY,
    UNAVAILABILITY_NOTE,
    Anomaly,
    AnomalyChecker,
    is_safety,
)

__all__ = ["EFFECTS", "EFFECT_NOTES", "KINDS", "SAFETY", "SEVERITY", "UNAVAILABILITY_NOTE", "Anomaly",
           "AnomalyChecker", "is_safety"]

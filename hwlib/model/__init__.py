"""The model both searches walk: its space (bounds, alphabet, state key, fingerprint), reductions and transition.

``hwlib check`` and ``hwlib explain`` stand on it; it stands on the engine and the anomaly
checks. ``vocabulary`` names the faults and defaults the command line reads without a search.
"""

from __future__ import annotations

from .. import compiled

compiled.extend(__path__, __name__)     # space, reductions and transition are compiled

from .reductions import Reductions, Renamings
from .space import Bounds, alphabet, enabled_steps, fingerprint, must_end, numbered, state_key
from .transition import KafkaModel

__all__ = ["Bounds", "KafkaModel", "Reductions", "Renamings", "alphabet", "enabled_steps", "fingerprint",
           "must_end", "numbered", "state_key"]

"""``hwlib profiles``: the built-in fault profiles, their mixes, and every action a profile can draw."""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """No options: every built-in profile is printed."""


def handle(args: argparse.Namespace) -> int:
    from ..profiles import ACTION_HELP, builtin_profiles, load_profile
    from ..views.text import profiles_text

    print(profiles_text({name: load_profile(name) for name in builtin_profiles()}, ACTION_HELP))
    return 0

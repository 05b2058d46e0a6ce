"""The releases the default report compares: the ones people run, one row each."""

DEFAULT_RELEASES = ("0.10.2", "0.11", "2.0", "2.1", "2.8-zk", "3.6-zk", "3.7-kraft", "3.9-kraft", "4.1")

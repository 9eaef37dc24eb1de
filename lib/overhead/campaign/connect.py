"""Verified SSH connections: moved to :mod:`overhead.environments.connect`, importable here too."""

from overhead.environments.connect import HostKeyError, SSHError, connect, endpoint_name

__all__ = ["HostKeyError", "SSHError", "connect", "endpoint_name"]

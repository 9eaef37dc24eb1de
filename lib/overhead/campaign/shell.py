"""The persistent remote shell: moved to :mod:`overhead.environments.shell`, importable here too."""

from overhead.environments.shell import RemoteShell, ShellBroken, ShellTimeout

__all__ = ["RemoteShell", "ShellBroken", "ShellTimeout"]

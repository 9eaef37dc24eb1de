"""A papermill engine that passes Ctrl-C on to the kernel that measures.

papermill starts its kernel in a session of its own (jupyter_client), so a terminal's Ctrl-C
(SIGINT to the foreground process group: make, the shell, papermill) never reaches the kernel
that runs a campaign: papermill alone stops, and the kernel goes on starting trials. With this
engine (``papermill --engine overhead ...``, registered as papermill's ``overhead`` engine) the
first Ctrl-C is sent on to the kernel, where the campaign's own handler
(:func:`overhead.campaign.execute.run_campaign`) lets the trials in flight finish and stops
(resumable); the second is sent on too (the campaign stops now, its trials in flight recorded
interrupted); a third stops papermill itself, which shuts the kernel down.

JupyterLab's interrupt button and ``overhead run`` in a terminal need nothing of this: their
SIGINT reaches the process that measures.
"""

from __future__ import annotations

import os
import signal
import sys
import threading

import psutil

__all__ = ["kernels_of"]  # and InterruptingEngine, defined on first use (__getattr__)


def kernels_of(pid: int) -> list[int]:
    """Return the pids of the Jupyter kernels ``pid`` started (its children running ipykernel)."""
    try:
        children = psutil.Process(pid).children()
    except psutil.Error:
        return []
    out = []
    for child in children:
        try:
            if any("ipykernel" in part for part in child.cmdline()):
                out.append(child.pid)
        except psutil.Error:
            continue
    return out


def _engine_class():
    """Define the engine (papermill imported here: see :func:`__getattr__`)."""
    from papermill.engines import NBClientEngine

    class InterruptingEngine(NBClientEngine):
        """papermill's nbclient engine, with SIGINT passed on to the kernel (see the module)."""

        @classmethod
        def execute_managed_notebook(cls, nb_man, kernel_name, **kwargs):
            """Execute the notebook as nbclient does, forwarding SIGINT to its kernel meanwhile."""
            if threading.current_thread() is not threading.main_thread():
                return super().execute_managed_notebook(nb_man, kernel_name, **kwargs)
            passed = [0]

            def on_sigint(signum, frame):
                kernels = kernels_of(os.getpid())
                if not kernels or passed[0] >= 2:
                    raise KeyboardInterrupt
                passed[0] += 1
                for pid in kernels:
                    try:
                        os.kill(pid, signal.SIGINT)
                    except ProcessLookupError:
                        pass
                what = ("the trials in flight finish, then the campaign stops (run again to "
                        "resume); Ctrl-C again stops now" if passed[0] == 1 else
                        "the campaign stops now; Ctrl-C again stops papermill")
                print(f"\npapermill: Ctrl-C passed to the kernel (pid {', '.join(map(str, kernels))}): "
                      f"{what}", file=sys.stderr, flush=True)

            previous = signal.signal(signal.SIGINT, on_sigint)
            try:
                return super().execute_managed_notebook(nb_man, kernel_name, **kwargs)
            finally:
                signal.signal(signal.SIGINT, previous)

    return InterruptingEngine


def __getattr__(name: str):
    """Build :class:`InterruptingEngine` when first asked for.

    papermill loads its engines' entry points while ``papermill.engines`` itself is being
    imported, so this module cannot import papermill at its top: whichever of the two is
    imported first, the class is defined on first use, after papermill's ``NBClientEngine``.
    """
    if name == "InterruptingEngine":
        cls = _engine_class()
        globals()[name] = cls
        return cls
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

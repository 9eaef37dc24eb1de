"""The measured places: how rows name them, and how figures label and colour them.

A row says where it was measured with two columns: ``environment`` (``native``, ``docker``,
``podman``, ``lxc``, ``kvm``, ``vm``, ``static``) and ``variant`` (how: ``net=nat,storage=volume``, ``tuned``,
``accel=tcg``...). :mod:`~overhead.environments.labels` turns the pair into the display label that
tables and legends use, and gives every label one colour and one marker across all figures.

Everything about running in an environment is here too, below the campaign engine:
:mod:`~overhead.environments.remote` (an SSH endpoint: connection, shell, exec, put, fetch),
:mod:`~overhead.environments.base` (the lifecycle every environment shares, and the context the
engine gives it), one file per kind (``native``, ``docker``, ``podman``, ``lxc``, ``vm`` with the QEMU
commands of ``qemu``, ``static``; ``client`` for a load generator's endpoint) and
:mod:`~overhead.environments.registry` (kind name -> environment). Adding a kind is adding one
file and a registry line.
"""

from overhead.environments.labels import (
    LABEL_ORDER,
    OKABE_ITO,
    STYLE,
    colour,
    label,
    labels,
    marker,
    order,
    ordered,
    palette,
)

__all__ = ["LABEL_ORDER", "OKABE_ITO", "STYLE", "colour", "label", "labels", "marker", "order",
           "ordered", "palette"]

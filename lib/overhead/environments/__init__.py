"""The measured places: how rows name them, and how figures label and colour them.

A row says where it was measured with two columns: ``environment`` (``native``, ``docker``,
``kvm``, ``vm``, ``static``) and ``variant`` (how: ``net=nat,storage=volume``, ``tuned``,
``accel=tcg``...). :mod:`~overhead.environments.labels` turns the pair into the display label that
tables and legends use, and gives every label one colour and one marker across all figures.
How a runner is launched in each environment comes here too, one module per environment.
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

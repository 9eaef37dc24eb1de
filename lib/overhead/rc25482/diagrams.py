"""Set-up diagrams of IBM RC25482 drawn with matplotlib (boxes and arrows, no pasted images).

- :func:`network_setups` -- Fig 1, the network paths (native; Docker NAT; Docker --net=host; KVM).
- :func:`storage_setups` -- Fig 4, the storage paths (native; Docker volume; Docker AUFS; KVM).

Each function returns a :class:`matplotlib.figure.Figure`; the caller saves it with
``overhead.plots.save(fig, out, "fig01")`` (or "fig04"). Column colours are the environment
colours of :mod:`overhead.plots`, so a diagram matches the data figures. The stacks follow the
paper's text (Sections III-E, III-G, IV-B); they are drawings of set-ups, not measurements.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import matplotlib.pyplot as plt
from matplotlib.colors import to_rgba
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

from overhead import plots

__all__ = ["Stack", "draw_stacks", "network_setups", "storage_setups"]

HOST_FACE, HOST_EDGE = "#eeeeee", "#555555"


@dataclass
class Stack:
    """One column of a diagram, from the application (top) down to the hardware.

    Parameters
    ----------
    title : str
        Column heading.
    label : str
        The environment label whose colour the column takes (:func:`overhead.plots.colour`).
    layers : sequence of str
        Box texts, top to bottom.
    host : sequence of int
        Indices of the layers that belong to the host kernel or hardware (drawn grey).
    enclose : (int, int, str), optional
        ``(first, last, text)`` drawing a dashed frame around layers first..last (e.g. the VM).
    notes : dict of int to str
        Arrow annotations keyed by the index of the arrow's upper layer.
    """

    title: str
    label: str
    layers: Sequence[str]
    host: Sequence[int] = field(default_factory=tuple)
    enclose: tuple[int, int, str] | None = None
    notes: dict[int, str] = field(default_factory=dict)


def draw_stacks(stacks: Sequence[Stack], *, title: str | None = None, footnote: str | None = None,
                box_height: float = 0.5, gap: float = 0.28, col_width: float = 2.45,
                fontsize: float = 9.0):
    """Draw columns of boxes joined by downward arrows.

    Parameters
    ----------
    stacks : sequence of Stack
        The columns.
    title : str, optional
        Figure title.
    footnote : str, optional
        Small text under the columns.
    box_height, gap, col_width : float
        Geometry in inches (the axes are drawn 1:1 in inches, so text sizes stay readable
        whatever the number of layers).
    fontsize : float
        Box text size.

    Returns
    -------
    matplotlib.figure.Figure
        The figure.
    """
    depth = max(len(s.layers) for s in stacks)
    step = col_width + 0.35
    height = depth * box_height + (depth - 1) * gap
    top_room, bottom_room = 0.62, (0.45 if footnote else 0.1)
    width = (len(stacks) - 1) * step + col_width + 0.3
    total_h = height + top_room + bottom_room + (0.45 if title else 0.0)
    fig = plt.figure(figsize=(width, total_h))
    ax = fig.add_axes((0, 0, 1, (height + top_room + bottom_room) / total_h))
    ax.set_axis_off()
    ax.set_xlim(-col_width / 2 - 0.15, (len(stacks) - 1) * step + col_width / 2 + 0.15)
    ax.set_ylim(-bottom_room, height + top_room)
    for i, s in enumerate(stacks):
        x = i * step
        edge = plots.colour(s.label)
        ax.text(x, height + top_room - 0.08, s.title, ha="center", va="top", fontsize=fontsize + 2,
                fontweight="bold", color=edge)
        ys = [height - box_height / 2 - k * (box_height + gap) for k in range(len(s.layers))]
        if s.enclose is not None:
            first, last, text = s.enclose
            pad = 0.1
            top, bottom = ys[first] + box_height / 2 + pad + 0.06, ys[last] - box_height / 2 - pad
            ax.add_patch(FancyBboxPatch((x - col_width / 2 - pad, bottom), col_width + 2 * pad, top - bottom,
                                        boxstyle="round,pad=0,rounding_size=0.08", linewidth=1.2,
                                        linestyle="--", facecolor="none", edgecolor=edge))
            ax.text(x - col_width / 2 + 0.05, top, f" {text} ", ha="left", va="center",
                    fontsize=fontsize - 1, color=edge, fontweight="bold",
                    bbox={"boxstyle": "square,pad=0.05", "facecolor": "white", "edgecolor": "none"})
        for k, (text, y) in enumerate(zip(s.layers, ys, strict=True)):
            face, edgec = (HOST_FACE, HOST_EDGE) if k in s.host else (to_rgba(edge, 0.16), edge)
            ax.add_patch(FancyBboxPatch((x - col_width / 2, y - box_height / 2), col_width, box_height,
                                        boxstyle="round,pad=0,rounding_size=0.06", linewidth=1.3,
                                        facecolor=face, edgecolor=edgec))
            ax.text(x, y, text, ha="center", va="center", fontsize=fontsize, linespacing=1.1)
            if k + 1 < len(s.layers):
                ax.add_patch(FancyArrowPatch((x, y - box_height / 2), (x, ys[k + 1] + box_height / 2),
                                             arrowstyle="-|>", mutation_scale=10, linewidth=1.2,
                                             color="#333333", shrinkA=0, shrinkB=0))
                if k in s.notes:
                    ax.text(x + 0.08, y - box_height / 2 - gap / 2, s.notes[k], ha="left", va="center",
                            fontsize=fontsize - 1.5, style="italic", color="#333333")
    if footnote:
        ax.text(((len(stacks) - 1) * step) / 2, -bottom_room + 0.12, footnote, ha="center",
                va="bottom", fontsize=fontsize - 1, color="#333333")
    if title:
        fig.suptitle(title, fontsize=fontsize + 4, fontweight="bold", y=1 - 0.12 / total_h, va="top")
    return fig


def network_setups():
    """Draw Fig 1: the network set-ups of the paper (Sections III-E, III-F and IV-B).

    Native: the benchmark's socket goes through the host TCP/IP stack to the NIC. Docker NAT
    (Docker's default): the container's own network namespace and stack, a veth pair into the
    docker0 bridge, iptables NAT (masquerade / DNAT port mapping) in the host, then the NIC.
    Docker --net=host: the container shares the host's network namespace, so the path is
    native. KVM: guest stack -> virtio-net -> vhost-net (host kernel) -> tap -> Linux bridge ->
    NIC. The NICs are Mellanox ConnectX-2 EN on a direct 10 Gbps link.

    Returns
    -------
    matplotlib.figure.Figure
        The diagram.
    """
    nic = "10 GbE NIC\n(Mellanox ConnectX-2 EN)"
    stacks = [
        Stack("Native", "Native",
              ["application\n(nuttcp / netperf)", "host TCP/IP stack", "NIC driver", nic],
              host=(1, 2, 3)),
        Stack("Docker NAT (default)", "Docker NAT",
              ["application", "container TCP/IP stack", "veth pair\n(container eth0 to host)", "docker0 bridge",
               "iptables NAT\n(netfilter, host)", "NIC driver", nic],
              host=(3, 4, 5, 6), enclose=(0, 2, "container netns")),
        Stack("Docker --net=host", "Docker net=host",
              ["application", "host TCP/IP stack\n(shared namespace)", "NIC driver", nic],
              host=(1, 2, 3), enclose=(0, 0, "container")),
        Stack("KVM (virtio + vhost)", "KVM",
              ["application", "guest TCP/IP stack", "virtio-net\n(paravirtual NIC)",
               "vhost-net\n(host kernel thread)", "tap device", "Linux bridge", nic],
              host=(3, 4, 5, 6), enclose=(0, 2, "VM (guest kernel)")),
    ]
    return draw_stacks(stacks, title="Fig. 1  Network set-ups",
                       footnote="coloured: inside the container or guest;  grey: host kernel and "
                                "hardware.  Drawn from the paper's text (Sections III-E, III-F).")


def storage_setups():
    """Draw Fig 4: the storage set-ups of the paper (Sections III-G and IV-B).

    Native: fio on ext4, block layer with dm-multipath, the QLogic FC HBA, an IBM FlashSystem
    840 over two 8 Gb Fibre Channel links. Docker volume (``-v``): the host directory is bind-
    mounted into the container, so I/O takes the native path (the fio tests). Docker AUFS: the
    container's own filesystem, a union of read-only image layers and a writable layer with
    copy-up on first write (the MySQL "Docker NAT AUFS" set-up). KVM: guest ext4 -> virtio-blk ->
    QEMU (a host process) -> the raw block device (fio) or a qcow2 image file on the host
    filesystem (MySQL) -> host block layer -> device. Name and signature are stable.

    Returns
    -------
    matplotlib.figure.Figure
        The diagram; the block I/O notebook saves it as fig04.
    """
    ssd = "IBM FlashSystem 840\n(2 x 8 Gb Fibre Channel)"
    stacks = [
        Stack("Native", "Native",
              ["fio\n(libaio, O_DIRECT)", "ext4 filesystem", "block layer\n+ dm-multipath",
               "FC HBA (QLogic ISP2532)", ssd],
              host=(1, 2, 3, 4)),
        Stack("Docker volume (-v)", "Docker net=host volume",
              ["fio", "bind mount of a host directory\n(no AUFS, no copy-on-write)", "host ext4",
               "block layer\n+ dm-multipath", "FC HBA", ssd],
              host=(2, 3, 4, 5), enclose=(0, 1, "container")),
        Stack("Docker AUFS (MySQL only)", "Docker NAT AUFS",
              ["MySQL", "AUFS union: writable layer\nover read-only image layers",
               "copy-up of a file\non its first write", "host filesystem", "block layer",
               "host disk"],
              host=(3, 4, 5), enclose=(0, 2, "container")),
        Stack("KVM (virtio-blk)", "KVM",
              ["fio / MySQL", "guest ext4", "guest block layer", "virtio-blk\n(paravirtual disk)",
               "QEMU (host process):\nraw device (fio) / qcow2 (MySQL)",
               "host fs (qcow2 case only)", "host block layer\n+ dm-multipath", ssd],
              host=(4, 5, 6, 7), enclose=(0, 3, "VM (guest kernel)")),
    ]
    return draw_stacks(stacks, title="Fig. 4  Storage set-ups",
                       footnote="coloured: inside the container or guest;  grey: host (QEMU is a host "
                                "process) and hardware.  Drawn from the paper's text (Sections III-G, IV-B).")

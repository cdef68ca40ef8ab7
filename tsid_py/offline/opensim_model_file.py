"""Writing an OpenSim model with changed mass properties (the result of a residual
reduction, :mod:`.residual_reduction`), as OpenSim's RRA writes its adjusted model.

The source ``.osim`` is copied element for element, comments included; only the adjusted
bodies' ``<mass>`` (kg), ``<mass_center>`` (m, in the body's frame) and ``<inertia>``
(``[Ixx Iyy Izz Ixy Ixz Iyz]`` about the centre of mass, kg·m²) change. The file is written
atomically.
"""

from __future__ import annotations

import io
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pinocchio as pin

from .._files import atomic_write, read_text


def _numbers(values) -> str:
    return " ".join(repr(float(value)) for value in np.ravel(values))


def write_adjusted_model(source: str | os.PathLike, path: str | os.PathLike, inertias: dict[str, pin.Inertia]) -> None:
    """Write ``source`` (an ``.osim`` file) to ``path`` with the bodies of ``inertias`` (each
    in its body's frame: mass, centre of mass, inertia about it) changed. ``KeyError``
    naming the file for a body it does not have."""
    name = Path(source).name
    parser = ET.XMLParser(target=ET.TreeBuilder(insert_comments=True))
    try:
        root = ET.fromstring("\n".join(read_text(source, "OpenSim model")), parser=parser)
    except ET.ParseError as error:
        raise ValueError(f"{name}: not an XML file ({error})") from None
    bodies = {body.get("name"): body for body in root.iterfind("Model/BodySet/objects/Body")}
    missing = sorted(set(inertias) - set(bodies))
    if missing:
        raise KeyError(f"{name}: no bodies {missing} (bodies: {sorted(bodies)})")
    for body_name, inertia in inertias.items():
        body = bodies[body_name]
        matrix = inertia.inertia
        values = {"mass": _numbers([inertia.mass]), "mass_center": _numbers(inertia.lever),
                  "inertia": _numbers([matrix[0, 0], matrix[1, 1], matrix[2, 2], matrix[0, 1], matrix[0, 2],
                                       matrix[1, 2]])}
        for tag, text in values.items():
            element = body.find(tag)
            if element is None:
                element = ET.SubElement(body, tag)
            element.text = text
    buffer = io.BytesIO()
    ET.ElementTree(root).write(buffer, encoding="UTF-8", xml_declaration=True)
    with atomic_write(path, "wb") as handle:
        handle.write(buffer.getvalue())

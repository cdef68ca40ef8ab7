"""OpenSim's own kinematics and inverse dynamics of an OpenSim model at random states,
for the tests of tsid_py's .osim reader (``tests/data/opensim/opensim_states.npz``).

Needs the ``opensim`` package (``pip install opensim``; not a tsid_py dependency):

    python benchmarks/opensim_reference.py MODEL.osim OUT.npz [--states 20] [--seed 0]

For each state: coordinates ``c`` (uniform in each coordinate's range, clipped to ±1 rad
or ±1 m), rates ``ċ`` and accelerations ``c̈`` (normal, σ = 1), OpenSim's body placements
in ground (rotation, origin) and its generalized forces ``τ = M c̈ + C + G`` (no external
loads, no muscles), in the model's coordinate order.
"""

import argparse

import numpy as np


def main() -> None:
    import opensim as osim

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("out")
    parser.add_argument("--states", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    model = osim.Model(args.model)
    for i in range(model.getForceSet().getSize()):      # as the ID tool's "forces_to_exclude: Muscles"
        model.getForceSet().get(i).set_appliesForce(False)
    state = model.initSystem()
    coordinates = [model.getCoordinateSet().get(i) for i in range(model.getNumCoordinates())]
    names = [c.getName() for c in coordinates]
    tree = [None] * len(names)               # the mobilities' order: where each coordinate's speed lands
    for i, coordinate in enumerate(coordinates):
        for other in coordinates:
            other.setSpeedValue(state, 0.0)
        coordinate.setSpeedValue(state, 1.0)
        u = state.getU()
        tree[int(np.argmax([abs(u.get(k)) for k in range(u.size())]))] = names[i]
    bodies = [model.getBodySet().get(i) for i in range(model.getNumBodies())]
    rng = np.random.default_rng(args.seed)
    solver = osim.InverseDynamicsSolver(model)
    records = {key: [] for key in ("c", "dc", "ddc", "tau", "rotations", "origins")}
    for _ in range(args.states):
        low = np.array([max(c.getRangeMin(), -1.0) for c in coordinates])
        high = np.array([min(c.getRangeMax(), 1.0) for c in coordinates])
        c, dc, ddc = rng.uniform(low, high), rng.normal(size=len(names)), rng.normal(size=len(names))
        for coordinate, value, rate in zip(coordinates, c, dc):
            coordinate.setValue(state, value, False)
            coordinate.setSpeedValue(state, rate)
        model.realizeAcceleration(state)
        udot = osim.Vector(len(tree), 0.0)
        for i, name in enumerate(tree):
            udot.set(i, ddc[names.index(name)])
        forces = solver.solve(state, udot)
        tau = np.zeros(len(names))
        for i, name in enumerate(tree):
            tau[names.index(name)] = forces.get(i)
        rotations, origins = [], []
        for body in bodies:
            transform = body.getTransformInGround(state)
            R = transform.R()
            rotations.append([[R.get(i, j) for j in range(3)] for i in range(3)])
            origins.append([transform.p().get(i) for i in range(3)])
        for key, value in zip(records, (c, dc, ddc, tau, rotations, origins)):
            records[key].append(value)
    np.savez_compressed(args.out, names=np.array(names), bodies=np.array([b.getName() for b in bodies]),
                        opensim_version=osim.GetVersion(), **{k: np.array(v) for k, v in records.items()})
    print(f"{args.states} states of {args.model} -> {args.out}")


if __name__ == "__main__":
    main()

"""A load hung on a standing humanoid's right hand, with and without its wrench in the controller.

    python benchmarks/hanging_load.py [--robots talos,g1] [--mass-fraction 0.11] [--duration 5]
        [--noise 2] [--seeds 0,1,2] [--json FILE]

Per robot, a mass of ``--mass-fraction`` × the robot's mass (10 kg on Talos, 3.7 kg on G1) hangs 0.3 m below
its right hand (:func:`tsid_py.models.hands.hands`) on a damped pendulum in
MuJoCo, and the balance controller is told its wrench: measured by the plant's force/torque
sensor at the pivot (exact, and with ``--noise`` N of white noise, one run per seed), its
constant weight, or nothing (:func:`tsid_py.scenarios.hanging_load.hanging_load_trial`). The
table: fell, the robot's CoM against the balance target (largest and final horizontal
error), the smallest margin of the measured centre of pressure inside the soles' hull, how
far the hand sank and the base dropped, and the relaxed steps. Results are in
``docs/constraints.md`` (Known external wrenches).
"""

from __future__ import annotations

import argparse

import tsid_py as tp
from tsid_py.bench import write_json
from tsid_py.scenarios.hanging_load import hanging_load_trial

COLUMNS = (("fell", "fell", "{}"), ("com_error_max_mm", "CoM err max mm", "{:.2f}"),
           ("com_error_end_mm", "CoM err end mm", "{:.2f}"), ("cop_margin_min_mm", "CoP margin mm", "{:.1f}"),
           ("hand_sink_max_mm", "hand sink mm", "{:.1f}"), ("base_drop_mm", "base drop mm", "{:.1f}"),
           ("relaxed_steps", "relaxed", "{}"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--robots", default="talos,g1")
    parser.add_argument("--mass-fraction", type=float, default=0.1108, help="10 kg on Talos")
    parser.add_argument("--duration", type=float, default=5.0)
    parser.add_argument("--noise", type=float, default=2.0, help="N of white noise on the measured forces")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    runs = []
    for name in args.robots.split(","):
        mass = round(args.mass_fraction * tp.robots.load(name).mass, 1)
        cases = [("measured", 0.0, 0), *(("measured", args.noise, int(seed)) for seed in args.seeds.split(",")),
                 ("constant", 0.0, 0), ("none", 0.0, 0)]
        for wrench, noise, seed in cases:
            summary = hanging_load_trial(tp.robots.load(name), wrench=wrench, mass=mass, duration=args.duration,
                                         noise=noise, seed=seed)
            runs.append(summary)
            label = f"{name} {mass:g} kg on {summary['frame']}, {wrench}" + (f" ±{noise:g} N seed {seed}"
                                                                            if noise else "")
            cells = "  ".join(f"{title} {form.format(summary[key]) if summary[key] is not None else '-'}"
                              for key, title, form in COLUMNS)
            print(f"{label:<62} {cells}", flush=True)
    if args.json:
        write_json(args.json, {"runs": runs, "duration_s": args.duration, "mass_fraction": args.mass_fraction})


if __name__ == "__main__":
    main()

"""``tsid-py``: run the demos and the step benchmark.

    tsid-py demo NAME [--robot R] [--duration S] [--json FILE] [--plot FILE] [--viewer]
    tsid-py demo balance [--push N] [--push-direction {+x,-x,+y,-y}] [--push-at S] [--single-leg]
                         [--actuation-delay S] [--trunk-mass F]
    tsid-py bench [--robot talos g1 go2] [--steps 2000] [--json FILE]
"""

from __future__ import annotations

import argparse
import json
import os
import sys


def _plot(run, path: str) -> None:
    """CoM vs reference, ZMP, contact forces and torques over time, as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    log = run.log
    figure, axes = plt.subplots(2, 2, figsize=(12, 8))
    time = log.get("time")
    if "com" in log:
        for axis, label in ((0, "x"), (1, "y"), (2, "z")):
            axes[0, 0].plot(time, log["com"][:, axis] - log["com_ref"][0, axis], label=f"CoM {label}")
            axes[0, 0].plot(time, log["com_ref"][:, axis] - log["com_ref"][0, axis], "--", label=f"ref {label}")
        axes[0, 0].set_title("CoM − initial (m)")
        axes[0, 0].legend(fontsize=7)
    if "zmp" in log:
        axes[0, 1].plot(log["zmp"][:, 0], log["zmp"][:, 1], ".", markersize=1, label="ZMP (MuJoCo)")
        if "com" in log:
            axes[0, 1].plot(log["com"][:, 0], log["com"][:, 1], label="CoM ground projection")
        axes[0, 1].set_title("ZMP in the support polygon (x, y, m)")
        axes[0, 1].axis("equal")
        axes[0, 1].legend(fontsize=7)
    forces = [(key, style) for key, style in (("normal_forces", "-"), ("planned_normal_forces", "--"),
                                              ("recovered_normal_forces", ":")) if key in log]
    for key, style in forces:
        axes[1, 0].plot(time[: len(log[key])], log[key], style, label=key.replace("_", " "))
    axes[1, 0].set_title("normal contact forces (N)")
    if forces:                  # a demo without contacts (the arm) has nothing to label
        axes[1, 0].legend(fontsize=7)
    if "tau" in log:
        axes[1, 1].plot(time[: len(log["tau"])], log["tau"])
        axes[1, 1].set_title("joint torques (N·m)")
    for axis in axes.flat:
        axis.grid(alpha=0.3)
    figure.suptitle(f"tsid-py demo {run.name} ({run.robot})")
    figure.tight_layout()
    figure.savefig(path, dpi=90)
    plt.close(figure)


def _demo(args) -> int:
    from .bench import write_json
    from .sim import demos

    kwargs = {"robot": args.robot} if args.robot else {}
    if args.duration is not None:
        kwargs["duration"] = args.duration
    balance_options = {"push": args.push, "push_direction": args.push_direction, "push_at": args.push_at,
                       "actuation_delay": args.actuation_delay, "trunk_mass": args.trunk_mass,
                       "stance": "single" if args.single_leg else None}
    for key, value in balance_options.items():
        if value is not None:
            if args.name != "balance":
                raise SystemExit(f"--{key.replace('_', '-')} applies to the balance demo only")
            kwargs[key] = value
    if args.viewer:
        if not os.environ.get("DISPLAY") and sys.platform.startswith("linux"):
            print("--viewer: no display here (DISPLAY is unset); running headless", file=sys.stderr)
        else:
            kwargs["viewer"] = True
    function = demos.DEMOS[args.name]
    run = function(**kwargs)
    summary = {"demo": run.name, "robot": run.robot, **run.summary}
    print(json.dumps(summary, indent=2))
    write_json(args.json, summary)
    if args.plot:
        _plot(run, args.plot)
    return 1 if summary.get("fell") else 0


def main(argv=None) -> int:
    from .sim.demos import DEMOS

    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["bench"]:            # bench has its own parser (tsid_py.bench)
        from .bench import main as bench_main

        bench_main(argv[1:])
        return 0

    parser = argparse.ArgumentParser(prog="tsid-py", description="tsid_py demos and benchmarks")
    commands = parser.add_subparsers(dest="command", required=True)
    demo = commands.add_parser("demo", help="run a demo against MuJoCo")
    demo.add_argument("name", choices=sorted(DEMOS))
    demo.add_argument("--robot", help="robot name (talos, g1, go2, solo12, panda, ur5)")
    demo.add_argument("--duration", type=float, help="simulated seconds")
    demo.add_argument("--push", type=float,
                      help="balance: push force in N, applied for 0.1 s (default 1.6 N per kg of the robot)")
    demo.add_argument("--push-direction", choices=["+x", "-x", "+y", "-y"],
                      help="balance: one push this way (default: the two-push schedule, +y then +x)")
    demo.add_argument("--push-at", type=float, help="balance: time of the single push, s (default 1)")
    demo.add_argument("--actuation-delay", type=float, help="balance: simulated actuation delay, s")
    demo.add_argument("--trunk-mass", type=float, help="balance: factor on the simulated torso and base mass")
    demo.add_argument("--single-leg", action="store_true", default=None,
                      help="balance: stand on the first foot (the other lifted 3 cm) before the push (at 2 s)")
    demo.add_argument("--json", help="write the summary to this file")
    demo.add_argument("--plot", help="write a PNG of CoM, ZMP, forces and torques")
    demo.add_argument("--viewer", action="store_true", help="open MuJoCo's viewer (needs a display)")
    commands.add_parser("bench", help="time the control step of the reference problem (see tsid-py bench -h)")
    return _demo(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())

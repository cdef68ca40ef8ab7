"""Time one control step of the reference balance problem (see tsid_py/bench.py).

    python benchmarks/step.py [--robot talos g1 go2] [--steps 2000] [--json FILE]
"""

from tsid_py.bench import main

if __name__ == "__main__":
    main()

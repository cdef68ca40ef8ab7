"""Scenarios: what runs the controllers against the MuJoCo harness and judges them — the
demos behind ``tsid-py demo``, push trials and sweeps, walks, the soak run, recordings for
the offline inverse dynamics, plots and videos."""

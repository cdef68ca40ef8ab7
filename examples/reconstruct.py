"""Joint torques and ground-reaction forces of a motion, from its positions.

Talos sways in MuJoCo under the balance controller while only its base and joint
positions are recorded, as motion capture would; then
``tp.multiple_contact_inverse_dynamics_over_time`` recovers the torques and each
foot's wrench from those positions alone (one QP over all frames, the contacts
bounded as physics bounds them: unilateral, friction, the soles' centre of
pressure) and they are compared with what MuJoCo applied. With both feet down
the motion fixes the feet's total force, not how the weight splits between
them: the bounds and the objective choose the split. Good: the total within a
percent of the weight, each foot within a few percent, the torques within a few
N·m.

    python examples/reconstruct.py [--duration S] [--plot forces.png]
"""

import numpy as np

import tsid_py as tp
from tsid_py.control import BalanceController
from tsid_py.sim import Simulation
from tsid_py.tools.scripts import script_options

options = script_options(__doc__, duration=2.0, video=False)
robot = tp.robots.load("talos")
sim = Simulation(robot)
controller = BalanceController(robot, dt=sim.timestep)
centre = controller.com.position_ref.copy()
positions, forces, torques = [], [], []
settle = 200                            # steps: the soles settle, not recorded

for step in range(settle + round(options.duration / sim.timestep)):
    t = step * sim.timestep
    sway = 0.07 * np.sin(np.pi * t) * min(t, 1.0)     # m, 0.5 Hz, ramped in
    controller.com.set_target(centre + [0.0, sway, 0.0])
    q, v = sim.state()
    tau = controller.step(q, v).tau_actuated
    sim.step(tau)
    if step >= settle:                      # what happened during this step
        measured = sim.contact_wrenches()
        positions.append(q)
        forces.append([measured[foot][2] for foot in robot.feet])
        torques.append(tau)

# Only the positions go in: velocities and accelerations come from their finite
# differences on the configuration manifold (pinocchio.difference).
dt = sim.timestep
result = tp.multiple_contact_inverse_dynamics_over_time(
    robot, np.array(positions), dt, robot.feet)
# Frame t of the result (positions t-1, t, t+1) is physics step t: 1 ... T-2.
recovered = result.wrenches[:, :, 2]                     # (T-2, feet), N
force_error = recovered - np.array(forces)[1:-1]
torque_error = result.tau[:, 6:] - np.array(torques)[1:-1]
share = 100 / robot.weight                  # % of the weight per newton
rms = lambda error: np.sqrt(np.mean(np.square(error)))
print(f"{len(positions)} frames, "
      f"{len(result.relaxed_frames)} with relaxed bounds")
print(f"vertical force error, RMS: the feet together "
      f"{share * rms(force_error.sum(axis=1)):.2f} %, each foot "
      f"{share * rms(force_error):.1f} % of the weight ({robot.weight:.0f} N)")
print(f"joint torque error: RMS {rms(torque_error):.1f} N·m "
      f"(the torques: {rms(torques):.1f} N·m RMS)")
print("good: the total within 1 %, each foot a few %, the torques a few N·m")

if options.plot:
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7, 4), layout="constrained")
    axis = figure.subplots()
    time = dt * np.arange(1, len(recovered) + 1)
    for index, foot in enumerate(robot.feet):
        line, = axis.plot(time, np.array(forces)[1:-1, index],
                          label=f"{foot} (MuJoCo)")
        axis.plot(time, recovered[:, index], "--", color=line.get_color(),
                  label=f"{foot} (recovered)")
    axis.set(xlabel="time (s)", ylabel="N", title="vertical force, each sole")
    axis.legend()
    figure.savefig(options.plot)

# From the shell: tsid-py inverse-dynamics motion.npz --robot talos --dt 0.001
#                 --out result.npz   (positions in an .npz array or a .csv)

"""Robot profiles: what a controller needs to know about a robot beyond its dynamics (feet
and their contact geometry, torso, posture, leg joints, gait defaults), derived from the
model by documented rules, with explicit overrides."""

"""The tools layer's modules beyond the command line: the peer benchmark's workers, the
flight recorder's replay and the Rerun viewer."""

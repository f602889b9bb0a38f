"""A compact link simulator for pipelined collectives, calibrated to the reference."""

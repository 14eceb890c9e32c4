"""Scale: a compute-bound step, streamed training as N grows, a step over several devices."""

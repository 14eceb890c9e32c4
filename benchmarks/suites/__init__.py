"""Reproducible benchmarks: the papers' accuracy protocol, speed beside the peers, scale."""

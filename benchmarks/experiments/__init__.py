"""Investigations behind the defaults and the docs' notes: runnable, but not part of the library's
protocol or of the reproducible suites."""

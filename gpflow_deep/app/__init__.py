"""The application on top of the library: the ``gpflow-deep`` command line, tables and run
directories, plots, the demo and the papers' benchmark protocol. The library never imports it."""

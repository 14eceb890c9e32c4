"""`gpflow-deep --help` starts without loading TensorFlow (a user sees its start-up on every call)."""

import subprocess
import sys

HELP_AND_CHECK = """
import sys
from gpflow_deep.app.cli.main import main
for command in ([], ["fit"], ["demo"], ["benchmark"], ["predict"]):
    try:
        main(command + ["--help"])
    except SystemExit:
        pass
print("loaded:", sorted(name for name in ("tensorflow", "gpflow") if name in sys.modules))
"""


def test_help_of_every_command_loads_neither_tensorflow_nor_gpflow():
    output = subprocess.run([sys.executable, "-c", HELP_AND_CHECK], capture_output=True, text=True, check=True).stdout
    assert output.strip().splitlines()[-1] == "loaded: []"

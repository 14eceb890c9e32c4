"""``import gpflow_deep`` is light: the library's names load on use, and never the application."""

import json
import subprocess
import sys

import pytest

PROBE = """
import json, sys
import gpflow_deep as gd
loaded_at_import = sorted(m for m in sys.modules if m.startswith(("tensorflow", "gpflow_deep.app")))
names = [gd.DeepGP, gd.build_sod_dgp, gd.fit, gd.export, gd.select_beta]
moved = [gd.metrics.evaluate, gd.mixtures.GaussianMixture, gd.model_selection.select_beta]
after_use = sorted(m for m in sys.modules if m.startswith("gpflow_deep.app"))
print(json.dumps(dict(at_import=loaded_at_import, after_use=after_use, export=callable(gd.export))))
"""


def test_the_library_never_loads_the_command_line():
    result = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, check=True)
    loaded = json.loads(result.stdout.strip().splitlines()[-1])
    assert loaded["at_import"] == []  # neither TensorFlow nor the application at import
    assert loaded["after_use"] == []  # every public name of the library, and still no app module
    assert loaded["export"]


def test_unknown_names_are_an_attribute_error():
    import gpflow_deep

    with pytest.raises(AttributeError, match="no_such_name"):
        gpflow_deep.no_such_name  # noqa: B018

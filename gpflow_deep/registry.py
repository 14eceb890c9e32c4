"""Models and likelihoods by name, as the command line and run directories refer to them.

A model joins the command line by registering the name of its builder (a function of
``gpflow_deep`` with the signature ``build_xxx(X, Y, num_layers, *, likelihood=None, seed=0)``);
only builders that exist in the installed package are offered.
"""

import inspect
from typing import Callable, Dict, List, Optional

import gpflow

MODEL_BUILDERS: Dict[str, str] = {
    "deep_gp": "build_deep_gp",
    "dspp": "build_dspp",
    "random_feature_dgp": "build_random_feature_dgp",
    "aep_dgp": "build_aep_dgp",
    "sod_dgp": "build_sod_dgp",
}

REGRESSION_LIKELIHOODS = ("gaussian", "studentt", "poisson")
CLASSIFICATION_LIKELIHOODS = ("bernoulli", "multiclass")
LIKELIHOODS = REGRESSION_LIKELIHOODS + CLASSIFICATION_LIKELIHOODS


def register_builder(model_name: str, builder_name: str) -> None:
    """Offer the builder ``gpflow_deep.<builder_name>`` as ``--model <model_name>``."""
    MODEL_BUILDERS[model_name] = builder_name


def available_models() -> List[str]:
    """The registered model names whose builder the installed package has."""
    import gpflow_deep

    return [name for name, builder in MODEL_BUILDERS.items() if hasattr(gpflow_deep, builder)]


def builder_named(builder_name: str) -> Callable:
    """The builder function ``gpflow_deep.<builder_name>``."""
    import gpflow_deep

    if not builder_name.startswith("build_") or not hasattr(gpflow_deep, builder_name):
        raise ValueError(f"gpflow_deep has no builder {builder_name!r}")
    return getattr(gpflow_deep, builder_name)


def accepts_likelihood(builder: Callable) -> bool:
    """Whether ``builder`` takes a ``likelihood`` argument (some models are Gaussian only)."""
    return "likelihood" in inspect.signature(builder).parameters


def make_likelihood(name: str, num_classes: Optional[int] = None) -> Optional[gpflow.likelihoods.Likelihood]:
    """The GPflow likelihood called ``name``; None for ``gaussian`` (each builder's own default,
    the Gaussian of its paper's initialisation)."""
    if name == "gaussian":
        return None
    if name == "studentt":
        return gpflow.likelihoods.StudentT()
    if name == "poisson":
        return gpflow.likelihoods.Poisson()
    if name == "bernoulli":
        return gpflow.likelihoods.Bernoulli()
    if name == "multiclass":
        if num_classes is None or num_classes < 2:
            raise ValueError("the multiclass likelihood needs at least 2 classes")
        return gpflow.likelihoods.MultiClass(num_classes)
    raise ValueError(f"unknown likelihood {name!r}; choose from {', '.join(LIKELIHOODS)}")

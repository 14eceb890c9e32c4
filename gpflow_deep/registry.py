"""Every model of the package in one table: its command-line name, its builder, and how the demo
and the papers' protocol build and train it.

A model is one :class:`ModelEntry`; :func:`register_model` adds one, and ``gpflow-deep fit
--model``, ``gpflow-deep demo`` and ``gpflow-deep benchmark`` all read the table. Builders are
named (a function ``gpflow_deep.build_xxx(X, Y, num_layers, *, seed=0, ...)``) and resolved on
use, so importing this module loads neither TensorFlow nor GPflow.
"""

import inspect
import math
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import TYPE_CHECKING, Callable, Dict, Iterator, List, Mapping, MutableMapping, Optional, Tuple

if TYPE_CHECKING:
    import gpflow

PAPER_STEPS = 20_000  # the papers' UCI protocol (Salimbeni & Deisenroth 2017)
PAPER_SOD_PATHS_AND_SUBSET = dict(num_samples=10, small_data_subset_size=50)  # Jain et al.'s T and small-data M

REGRESSION_LIKELIHOODS = ("gaussian", "studentt", "poisson")
CLASSIFICATION_LIKELIHOODS = ("bernoulli", "multiclass")
LIKELIHOODS = REGRESSION_LIKELIHOODS + CLASSIFICATION_LIKELIHOODS


@dataclass(frozen=True)
class Recipe:
    """One way to build and train a model, as data: ``app/demo.py`` and the benchmark protocol
    (``app/benchmark/protocol.py``) interpret it.

    :ivar name: its name in ``gpflow-deep demo --models`` or ``gpflow-deep benchmark --models``.
    :ivar description: one line for tables.
    :ivar layers: the builder's ``num_layers``.
    :ivar builder_options: the builder's other keyword arguments (``seed`` aside).
    :ivar steps: training steps; or ``epochs``: passes over the training data (batches of ``batch_size``).
    :ivar batch_size: the minibatch; None for full batches.
    :ivar fixed_hyperparameters: the fraction of the steps that train only the variational
        parameters (``fit(fixed_hyperparameters_for=...)``).
    :ivar test_samples: S for the protocol's test scores; None for the model's own (or exact) mixture.
    :ivar betas: if given, β is chosen from these on a held-out sixth of the training data, each
        fit stopped early on it (:func:`~gpflow_deep.select_beta`).
    :ivar recorded: result fields read from the trained model, ``{field: model attribute}``.
    :ivar in_default_run: whether ``gpflow-deep demo`` without ``--models`` runs it.
    :ivar builder: the builder's name, filled in from the :class:`ModelEntry` that lists the recipe.
    """

    name: str
    description: str
    layers: int
    builder_options: Mapping[str, object] = field(default_factory=dict)
    steps: Optional[int] = None
    epochs: Optional[int] = None
    batch_size: Optional[int] = None
    fixed_hyperparameters: Fraction = Fraction(0)
    test_samples: Optional[int] = None
    betas: Optional[Tuple[float, ...]] = None
    recorded: Mapping[str, str] = field(default_factory=dict)
    in_default_run: bool = True
    builder: str = ""

    def __post_init__(self):
        if (self.steps is None) == (self.epochs is None):
            raise ValueError(f"recipe {self.name!r}: give steps or epochs, not both or neither")

    def run_length(self, num_train: int) -> int:
        """Training steps on ``num_train`` points: ``steps``, or ``epochs`` passes of ``batch_size``."""
        if self.epochs is None:
            return self.steps
        return self.epochs * math.ceil(num_train / min(self.batch_size or num_train, num_train))

    def fixed_steps(self, steps: int) -> int:
        """How many of ``steps`` train only the variational parameters."""
        return math.floor(steps * self.fixed_hyperparameters)


@dataclass(frozen=True)
class ModelEntry:
    """One model of the package.

    :ivar name: ``gpflow-deep fit --model`` and the run directories' name of the model.
    :ivar builder: the name of its builder in ``gpflow_deep``.
    :ivar takes_likelihood: whether the builder takes a ``likelihood`` other than the Gaussian of its
        paper; None: as its signature says.
    :ivar config: the name of the builder's config dataclass in :mod:`gpflow_deep.builders`, whose
        fields ``gpflow-deep fit --option`` sets; None: options go to the builder unchecked.
    :ivar floor_option: the builder option that sets the likelihood's noise floor (a variance), where
        its defaults decide that floor from the data (a pilot GP) and not from the moments a run
        directory keeps; the floor sits in the variance's transform, out of the checkpoint, so
        ``save_run`` records the floor chosen under this option. None: no such floor.
    :ivar likelihood_options: for a likelihood name (``fit --likelihood``), the builder options
        that give it in place of a GPflow likelihood passed in (the builder's own, started from the
        data), e.g. ``student_t_df`` for ``build_random_feature_dgp``, whose default is Student-t.
    :ivar numeric_likelihood: the likelihood of a numeric target under ``fit --likelihood auto``
        in place of the pilots' choice, where the builder's default is not the Gaussian; None: the
        pilots choose.
    :ivar demo: its recipes in ``gpflow-deep demo``.
    :ivar protocol: its papers' settings in the UCI protocol (``gpflow-deep benchmark``).
    """

    name: str
    builder: str
    takes_likelihood: Optional[bool] = None
    config: Optional[str] = None
    floor_option: Optional[str] = None
    likelihood_options: Mapping[str, Mapping[str, object]] = field(default_factory=dict)
    numeric_likelihood: Optional[str] = None
    demo: Tuple[Recipe, ...] = ()
    protocol: Tuple[Recipe, ...] = ()

    def __post_init__(self):
        for purpose in ("demo", "protocol"):
            recipes = tuple(replace(recipe, builder=self.builder) for recipe in getattr(self, purpose))
            object.__setattr__(self, purpose, recipes)


MODELS: Dict[str, ModelEntry] = {
    entry.name: entry
    for entry in (
        ModelEntry(
            "deep_gp",
            "build_deep_gp",
            config="DeepGPConfig",
            takes_likelihood=True,
            demo=(
                Recipe("sgp", "sparse variational GP (DeepGP, 1 layer)", 1, steps=1500),
                Recipe("dgp2", "DeepGP, 2 layers (DSVI)", 2, steps=1200),
                Recipe("dgp3", "DeepGP, 3 layers (DSVI)", 3, steps=1000, in_default_run=False),
            ),
            protocol=(
                Recipe("sgp", "DeepGP, 1 layer (SVGP)", 1, dict(setup="paper"), steps=PAPER_STEPS, test_samples=100),
                Recipe("dgp2", "DeepGP, 2 layers (DSVI)", 2, dict(setup="paper"), steps=PAPER_STEPS, test_samples=100),
                Recipe("dgp3", "DeepGP, 3 layers (DSVI)", 3, dict(setup="paper"), steps=PAPER_STEPS, test_samples=100),
            ),
        ),
        ModelEntry(
            "dspp",
            "build_dspp",
            config="DSPPConfig",
            takes_likelihood=True,
            floor_option="noise_floor",
            demo=(
                Recipe(
                    "dspp",
                    "DSPP, 2 layers (early stopping)",
                    2,
                    dict(num_inducing=100),
                    steps=1000,
                    betas=(1.0,),
                ),
            ),
            protocol=(
                Recipe(
                    "dspp2",
                    "DSPP, 2 layers (β and early stopping on validation)",
                    2,
                    dict(num_inducing=100, hidden_width=3, num_sigma_points=10),
                    steps=5000,
                    betas=(0.01, 0.05, 0.2, 1.0),
                ),
            ),
        ),
        ModelEntry(
            "random_feature_dgp",
            "build_random_feature_dgp",
            config="RandomFeatureDGPConfig",
            takes_likelihood=True,
            floor_option="noise_floor",
            likelihood_options=dict(gaussian=dict(student_t_df=None), studentt=dict(student_t_df=3.0)),
            numeric_likelihood="studentt",
            demo=(
                Recipe(
                    "rf",
                    "RandomFeatureDGP, 1 hidden layer (DGP-RBF)",
                    2,
                    steps=3000,
                    batch_size=200,
                    fixed_hyperparameters=Fraction(3, 5),
                ),
            ),
            protocol=(
                Recipe(
                    "rf2",
                    "RandomFeatureDGP, 1 hidden layer (DGP-RBF)",
                    2,
                    dict(setup="paper"),
                    steps=PAPER_STEPS,
                    batch_size=200,
                    fixed_hyperparameters=Fraction(3, 5),
                    test_samples=100,
                ),
            ),
        ),
        ModelEntry(
            "aep_dgp",
            "build_aep_dgp",
            config="AEPDGPConfig",
            takes_likelihood=True,
            floor_option="likelihood_floor",
            demo=(
                Recipe(
                    "aep2",
                    "AEPDGP, 2 layers (approximate EP)",
                    2,
                    dict(num_inducing=50, num_samples=5),
                    steps=1000,
                    batch_size=100,
                ),
            ),
            protocol=(
                Recipe(
                    "aep2",
                    "AEPDGP, 2 layers (Monte Carlo)",
                    2,
                    dict(likelihood_floor=0.0),  # the public code's unbounded noise
                    epochs=1000,
                    batch_size=100,
                    test_samples=100,
                ),
            ),
        ),
        ModelEntry(
            "sod_dgp",
            "build_sod_dgp",
            config="SoDDGPConfig",
            takes_likelihood=False,
            demo=(
                Recipe("sod2", "SoD-DGP, 2 layers (subset of 50)", 2, dict(subset_size=50, num_samples=2), steps=1000),
            ),
            protocol=(
                Recipe(
                    "sod2",
                    "SoDDGP, 2 layers (the paper's SoD-DGP1: one hidden layer)",
                    2,
                    PAPER_SOD_PATHS_AND_SUBSET,
                    steps=PAPER_STEPS,
                    test_samples=50,
                    recorded=dict(subset_size="num_subset"),
                ),
                Recipe(
                    "sod3",
                    "SoDDGP, 3 layers (the paper's SoD-DGP2: two hidden layers)",
                    3,
                    PAPER_SOD_PATHS_AND_SUBSET,
                    steps=PAPER_STEPS,
                    test_samples=50,
                    recorded=dict(subset_size="num_subset"),
                ),
            ),
        ),
    )
}
"""The package's models, by command-line name."""


def register_model(entry: ModelEntry) -> None:
    """Add ``entry`` to the command line, the demo and the benchmark protocol."""
    if entry.name in MODELS:
        raise ValueError(f"a model named {entry.name!r} is registered already")
    for purpose in ("demo", "protocol"):
        taken = _recipes(purpose)
        clashes = [recipe.name for recipe in getattr(entry, purpose) if recipe.name in taken]
        if clashes:
            raise ValueError(f"{purpose} recipes {clashes} of {entry.name!r} are registered already")
    MODELS[entry.name] = entry


def register_builder(model_name: str, builder_name: str) -> None:
    """Offer the builder ``gpflow_deep.<builder_name>`` as ``--model <model_name>``: a new model
    without recipes, or a registered one (its recipes kept) with another builder."""
    entry = MODELS.get(model_name)
    if entry is None:
        MODELS[model_name] = ModelEntry(model_name, builder_name)
    else:  # the old builder's config says nothing of the new one's keywords
        MODELS[model_name] = replace(entry, builder=builder_name, config=None)


def _recipes(purpose: str) -> Dict[str, Recipe]:
    return {recipe.name: recipe for entry in MODELS.values() for recipe in getattr(entry, purpose)}


class _Recipes(Mapping):
    """The recipes of every registered model for one purpose (``demo`` or ``protocol``), by name."""

    def __init__(self, purpose: str):
        self._purpose = purpose

    def __getitem__(self, name: str) -> Recipe:
        return _recipes(self._purpose)[name]

    def __iter__(self) -> Iterator[str]:
        return iter(_recipes(self._purpose))

    def __len__(self) -> int:
        return len(_recipes(self._purpose))


class _Builders(MutableMapping):
    """Model name -> builder name, read from and written to :data:`MODELS`."""

    def __getitem__(self, name: str) -> str:
        return MODELS[name].builder

    def __setitem__(self, name: str, builder: str) -> None:
        register_builder(name, builder)

    def __delitem__(self, name: str) -> None:
        del MODELS[name]

    def __iter__(self) -> Iterator[str]:
        return iter(MODELS)

    def __len__(self) -> int:
        return len(MODELS)


DEMO_RECIPES: Mapping[str, Recipe] = _Recipes("demo")
PROTOCOL_RECIPES: Mapping[str, Recipe] = _Recipes("protocol")
MODEL_BUILDERS: MutableMapping[str, str] = _Builders()


def default_demo_models() -> List[str]:
    """The demo recipes that ``gpflow-deep demo`` runs without ``--models``."""
    return [name for name, recipe in DEMO_RECIPES.items() if recipe.in_default_run]


def available_models() -> List[str]:
    """The registered model names whose builder the installed package has."""
    import gpflow_deep

    return [name for name, entry in MODELS.items() if entry.builder in gpflow_deep.__all__]  # without loading it


def builder_named(builder_name: str) -> Callable:
    """The builder function ``gpflow_deep.<builder_name>``."""
    import gpflow_deep

    if not builder_name.startswith("build_") or not hasattr(gpflow_deep, builder_name):
        raise ValueError(f"gpflow_deep has no builder {builder_name!r}")
    return getattr(gpflow_deep, builder_name)


def builder_config_class(model_name: str) -> Optional[type]:
    """The config dataclass of model ``model_name``'s builder; None if its entry names none."""
    entry = MODELS[model_name]
    if entry.config is None:
        return None
    import gpflow_deep.builders

    return getattr(gpflow_deep.builders, entry.config)


def accepts_likelihood(builder: Callable) -> bool:
    """Whether ``builder`` takes a ``likelihood`` (some models are Gaussian only): as the entry
    naming it says, else as its signature does."""
    for entry in MODELS.values():
        if entry.builder == builder.__name__ and entry.takes_likelihood is not None:
            return entry.takes_likelihood
    return "likelihood" in inspect.signature(builder).parameters


def likelihood_options(builder_name: str, likelihood: str) -> Optional[Mapping[str, object]]:
    """The builder options that give ``likelihood`` for the builder called ``builder_name``
    (:attr:`ModelEntry.likelihood_options`), or None where a GPflow likelihood is passed in."""
    for entry in MODELS.values():
        if entry.builder == builder_name:
            return entry.likelihood_options.get(likelihood)
    return None


def make_likelihood(
    name: str, num_classes: Optional[int] = None, robust_max: bool = False
) -> Optional["gpflow.likelihoods.Likelihood"]:
    """The GPflow likelihood called ``name``; None for ``gaussian`` (each builder's own default,
    the Gaussian of its paper's initialisation). ``multiclass`` is the softmax
    (:class:`~gpflow_deep.likelihoods.Softmax`), or with ``robust_max`` GPflow's ``MultiClass``
    (the command line's until 2026-11-30, which its older runs restore)."""
    if name == "gaussian":
        return None
    if name not in LIKELIHOODS:
        raise ValueError(f"unknown likelihood {name!r}; choose from {', '.join(LIKELIHOODS)}")
    import gpflow

    if name == "studentt":
        return gpflow.likelihoods.StudentT()
    if name == "poisson":
        return gpflow.likelihoods.Poisson()
    if name == "bernoulli":
        return gpflow.likelihoods.Bernoulli()
    if num_classes is None or num_classes < 2:
        raise ValueError("the multiclass likelihood needs at least 2 classes")
    if robust_max:
        return gpflow.likelihoods.MultiClass(num_classes)
    from gpflow_deep.likelihoods import Softmax

    return Softmax(num_classes)

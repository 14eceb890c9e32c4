"""What every deep model of the package shares: a stack of layers, a likelihood, and a finite
Gaussian-mixture predictive written once (the public ``predict_*`` API with its shape contracts and
input checks, moments, densities, samples, chunked evaluation)."""

import abc
import functools
from typing import Any, Callable, Iterator, List, Optional, Sequence, Tuple

import numpy as np
import tensorflow as tf
from check_shapes import check_shapes
from gpflow.base import RegressionData, TensorType
from gpflow.config import default_float
from gpflow.likelihoods import Likelihood
from gpflow.models import BayesianModel
from gpflow.models.training_mixins import ExternalDataTrainingLossMixin

from gpflow_deep.core import predictive
from gpflow_deep.core.mixtures import GaussianMixture, sample_mixture
from gpflow_deep.core.numerics import checked_prediction
from gpflow_deep.core.validation import (
    as_inputs,
    as_model_data,
    check_layer_stack,
    check_non_negative_int,
    check_positive_int,
)
from gpflow_deep.objectives import total_regulariser
from gpflow_deep.propagation import JointSampling, LayerOutput, Paths, Propagation

DEFAULT_PREDICTION_SAMPLES = 100  # the DSVI paper's code evaluates the test log-likelihood with 100

objective_shapes = check_shapes(
    "data[0]: [N, D]",
    "data[1]: [N, P]",
    "return: []",
)
"""The shape contract of a model's training objective on a (mini)batch (X, Y)."""

_moments_shapes = check_shapes(
    "Xnew: [N, D]",
    "return[0]: [N, P]",
    "return[1]: [N, P]",
)


def validate_inputs(method: Callable) -> Callable:
    """Check and convert a prediction method's first argument (``Xnew``, or ``data`` = (X, Y))
    before its shape checks run, so that bad input gets a ValueError/TypeError naming it; a failed
    factorisation or NaN in the results is raised as a ``NumericalError`` naming the layer."""

    @functools.wraps(method)
    def wrapper(self: "DeepMixtureModel", first, *args, **kwargs):
        if isinstance(first, (tuple, list)):
            first = as_model_data(first, self)
        else:
            first = as_inputs("Xnew", first, self.input_dim, self.dtype)
        return checked_prediction(self, method.__name__, first, functools.partial(method, self, first, *args, **kwargs))

    return wrapper


def resolve_seed(model: "DeepMixtureModel", seed) -> tf.Tensor:
    """A ``[2]`` int64 seed tensor from None (draw from the model's generator), an int or a pair."""
    if seed is None:
        return model.new_seed()
    if isinstance(seed, tf.random.Generator):
        return seed.make_seeds(1)[:, 0]
    values = np.atleast_1d(np.asarray(seed, dtype=np.int64))
    if values.shape == (1,):
        values = np.array([values[0], 0], dtype=np.int64)
    if values.shape != (2,):
        raise ValueError(f"seed must be None, an int, a pair of ints or a tf.random.Generator, got {seed!r}")
    return tf.constant(values, dtype=tf.int64)


class DeepMixtureModel(BayesianModel, ExternalDataTrainingLossMixin, abc.ABC):
    """A stack of layers whose predictive is a finite mixture of Gaussians over the last layer.

    Subclasses say how the paths are made (they set :attr:`propagation` in ``__init__``) and what
    is maximised (``maximum_log_likelihood_objective``); the predictive API below follows from the
    mixture and is the same for every model. Monte Carlo models (a rule with ``monte_carlo``) draw
    ``num_samples`` paths keyed by ``seed``; models whose mixture is fixed (DSPP) ignore both.

    :param layers: the layers, input first, each keeping the layer protocol
        (:mod:`gpflow_deep.layers.protocol`); each layer's output width is the next one's input width.
    :param likelihood: any GPflow likelihood; the last layer's width is its latent dimension.
    :param num_data: N, the size of the full training set (minibatch terms are scaled by N/B).
    :param num_prediction_samples: paths (Monte Carlo models) or draws (``predict_f_samples``)
        when a prediction call gives no ``num_samples``.
    :param seed: seeds the model's random number generator (``self.rng``), which supplies the
        noise of training objectives and of predictions called without a ``seed``.
    :param prediction_batch_size: test points per chunk in predictions (bounds memory).

    Subclasses pass these keyword options on as ``**options``.
    """

    default_learning_rate = 0.01
    """Adam's step size when :func:`~gpflow_deep.fit` is given none."""
    default_anneal = 0.0
    """The share of that step :func:`~gpflow_deep.fit` takes away along a half cosine by its last
    iteration when given no ``anneal`` (0: a constant step)."""
    paths_equally_weighted = True
    """Whether every path has the same weight (Monte Carlo paths), so that a Student-t's noise strata
    can be spread over the paths (:func:`~gpflow_deep.core.noise_strata.y_mixture`)."""

    def __init__(
        self,
        layers: Sequence[Any],
        likelihood: Likelihood,
        num_data: int,
        *,
        num_prediction_samples: int = DEFAULT_PREDICTION_SAMPLES,
        seed: int = 0,
        prediction_batch_size: int = 1000,
        name: Optional[str] = None,
    ):
        super().__init__(name=name)
        check_layer_stack(layers, likelihood)
        self.layers = list(layers)
        self.likelihood = likelihood
        self.num_data = check_positive_int("num_data", num_data)
        self.num_prediction_samples = check_positive_int("num_prediction_samples", num_prediction_samples)
        self.prediction_batch_size = check_positive_int("prediction_batch_size", prediction_batch_size)
        self.rng = tf.random.Generator.from_seed(int(seed))

    @property
    def input_dim(self) -> int:
        """D, the width of the model's inputs."""
        return self.layers[0].input_dim

    @property
    def dtype(self) -> tf.DType:
        """The float type of the model's parameters (inputs are converted to it)."""
        parameters = self.parameters
        return parameters[0].dtype if parameters else default_float()

    def new_seed(self) -> tf.Tensor:
        """A fresh ``[2]`` seed for stateless random ops, drawn from ``self.rng``."""
        return self.rng.make_seeds(1)[:, 0]

    @property
    def propagation(self) -> Propagation:
        """How the paths are made: a rule of :mod:`gpflow_deep.propagation`, checked against the
        layers when it is set."""
        return self._propagation

    @propagation.setter
    def propagation(self, rule: Propagation) -> None:
        if not isinstance(rule, Propagation):
            raise TypeError(f"propagation must be a rule of gpflow_deep.propagation, got {type(rule).__name__}")
        rule.check(self.layers)
        self._propagation = rule

    @property
    def monte_carlo(self) -> bool:
        """Whether the paths are random draws (``num_samples`` and ``seed`` apply) or a fixed set."""
        return self.propagation.monte_carlo

    def regulariser(self) -> tf.Tensor:
        """Σ_l of every layer's regulariser (the KLs of variational layers), asked without inputs."""
        return total_regulariser(self.layers)

    def _paths(
        self,
        X: tf.Tensor,
        num_samples: tf.Tensor,
        seed: tf.Tensor,
        first_row: Optional[tf.Tensor] = None,
        mode: str = "posterior",
    ) -> Paths:
        """Every layer's outputs on S paths at inputs X ``[N, D]``, and the paths' log-weights
        ``[S]``, by the model's :attr:`propagation` with every layer in ``mode``. Fixed sets of paths
        ignore ``num_samples``, ``seed`` and ``first_row``. With ``first_row`` (predictions), X are
        rows ``first_row, ...`` of a larger input, and the noise of each row depends on its index
        there only."""
        return self.propagation(self.layers, X, num_samples, seed, mode=mode, first_row=first_row)

    def _joint_paths(self, X: tf.Tensor, num_samples: int, seed: tf.Tensor) -> List[LayerOutput]:
        """Paths whose samples are joint over the N points (``full_cov=True``), where the rule has them."""
        if not isinstance(self.propagation, JointSampling):
            raise ValueError(f"full_cov: {type(self).__name__} has no joint samples over the test points")
        return self.propagation.joint(self.layers, X, num_samples, seed)

    def _mixture(
        self, X: tf.Tensor, num_samples: tf.Tensor, seed: tf.Tensor, first_row: Optional[tf.Tensor] = None
    ) -> GaussianMixture:
        """The predictive mixture over the last layer's f at inputs X ``[N, D]``."""
        outputs, log_weights = self._paths(X, num_samples, seed, first_row)
        return GaussianMixture(outputs[-1].means, outputs[-1].variances, log_weights)

    def _path_options(self, num_samples: Optional[int], seed) -> dict:
        if not self.monte_carlo:
            return dict(num_samples=1, seed=tf.zeros([2], tf.int64))
        if num_samples is None:
            num_samples = self.num_prediction_samples
        return dict(num_samples=check_positive_int("num_samples", num_samples), seed=resolve_seed(self, seed))

    @validate_inputs
    @check_shapes(
        "Xnew: [N, D]",
        "return.means: [S, N, P]",
        "return.variances: [S, N, P]",
        "return.log_weights: [S]",
    )
    def predict_mixture(self, Xnew: TensorType, num_samples: Optional[int] = None, seed=None) -> GaussianMixture:
        """The predictive mixture over f: S weighted Gaussians per point, one per path."""
        outputs, log_weights = self._predict("paths", Xnew, **self._path_options(num_samples, seed))
        return GaussianMixture(outputs[-1].means, outputs[-1].variances, log_weights)

    @validate_inputs
    @_moments_shapes
    def predict_f(self, Xnew: TensorType, num_samples: Optional[int] = None, seed=None) -> Tuple[tf.Tensor, tf.Tensor]:
        """Mean and variance of the predictive mixture over the last layer's f."""
        return self._predict("f", Xnew, **self._path_options(num_samples, seed))

    @validate_inputs
    @_moments_shapes
    def predict_y(self, Xnew: TensorType, num_samples: Optional[int] = None, seed=None) -> Tuple[tf.Tensor, tf.Tensor]:
        """Mean and variance of the predictive mixture over y (likelihood included)."""
        return self._predict("y", Xnew, **self._path_options(num_samples, seed))

    @validate_inputs
    @check_shapes(
        "data[0]: [N, D]",
        "data[1]: [N, P]",
        "return: [N]",
    )
    def predict_log_density(self, data: RegressionData, num_samples: Optional[int] = None, seed=None) -> tf.Tensor:
        """log Σ_s w_s p(y_n | path s) per point: the exact log-density of the mixture (for Monte
        Carlo models, of the mixture over the S paths drawn: a log-mean-exp)."""
        X, Y = data
        return self._predict("log_density", X, Y, **self._path_options(num_samples, seed))

    @validate_inputs
    @check_shapes(
        "Xnew: [N, D]",
        "return: [S, N, P]",
    )
    def predict_f_samples(
        self, Xnew: TensorType, num_samples: Optional[int] = None, seed=None, full_cov: bool = False
    ) -> tf.Tensor:
        """``num_samples`` draws of the last layer's f (one per path for Monte Carlo models, from
        the fixed mixture otherwise); ``full_cov`` makes each a joint draw over the N points."""
        if self.monte_carlo or full_cov:
            return self.predict_all_layers(Xnew, num_samples, seed, full_cov)[-1].values
        num_samples = self.num_prediction_samples if num_samples is None else num_samples
        draws = check_positive_int("num_samples", num_samples)
        return sample_mixture(*self.predict_mixture(Xnew), draws, resolve_seed(self, seed))

    @validate_inputs
    def predict_all_layers(
        self, Xnew: TensorType, num_samples: Optional[int] = None, seed=None, full_cov: bool = False
    ) -> List[LayerOutput]:
        """Every layer's marginals and passed-on values on S paths: one ``LayerOutput`` per layer,
        each field ``[S, N, D_l]``. With ``full_cov`` the samples are joint over the N points (O(N³),
        no chunking; models that have them)."""
        options = self._path_options(num_samples, seed)
        if full_cov:
            return self._joint_paths(Xnew, **options)
        return self._predict("paths", Xnew, **options)[0]

    def predict_mixture_chunks(
        self, Xnew: TensorType, num_samples: Optional[int] = None, seed=None, *, over: str = "f", first_row: int = 0
    ) -> Iterator[Tuple[slice, GaussianMixture]]:
        """``predict_mixture`` one chunk of ``prediction_batch_size`` rows at a time, for inputs
        whose whole ``[S, N, P]`` mixture need not be held at once: yields (rows, the mixture of
        those rows, each field ``[S, rows, P]``), the slices of ``predict_mixture(Xnew)`` with the
        same ``num_samples`` and ``seed``. ``over="y"`` gives the mixture over y instead (each
        path's moments of y under the likelihood: the mixture whose moments ``predict_y`` returns;
        for a Student-t likelihood each path split into strata of its noise's scale, S·Q
        components, :mod:`gpflow_deep.core.noise_strata`).
        ``first_row`` says that ``Xnew`` are rows ``first_row, ...`` of a larger input read in
        batches (a file), so that each row gets the noise it has there: the batches together give
        exactly the predictions of the whole input. The arguments are checked at the call, the
        chunks computed as they are taken."""
        if over not in ("f", "y"):
            raise ValueError(f"over must be 'f' or 'y', got {over!r}")
        X = as_inputs("Xnew", Xnew, self.input_dim, self.dtype)
        first_row = check_non_negative_int("first_row", first_row)
        return self._mixture_chunks(X, over, first_row, self._path_options(num_samples, seed))

    def _mixture_chunks(self, X: tf.Tensor, over: str, first_row: int, options: dict):
        quantity = "paths" if over == "f" else "y_mixture"
        for rows in predictive.row_chunks(X.shape[0], self.prediction_batch_size):
            output = checked_prediction(
                self,
                "predict_mixture_chunks",
                X[rows],
                lambda: predictive.evaluate(self, quantity, X[rows], first_row=first_row + rows.start, **options),
            )
            if over == "f":
                outputs, log_weights = output
                output = GaussianMixture(outputs[-1].means, outputs[-1].variances, log_weights)
            yield rows, output

    def _predict(self, quantity: str, X: tf.Tensor, Y: Optional[tf.Tensor] = None, **options) -> Any:
        """``quantity`` (one of :data:`~gpflow_deep.core.predictive.QUANTITIES`; Y only for
        ``"log_density"``) at all rows of X, by the one chunked predictive. X and Y are tensors
        already checked by :func:`validate_inputs`."""
        return predictive.joined(self, quantity, X, Y, **options)

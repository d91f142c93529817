"""The package's version, in the lowest layer so that saving can record it without importing
the package root."""

__version__ = "0.1.0.dev0"

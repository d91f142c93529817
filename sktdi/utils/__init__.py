"""Plumbing every layer shares: input validation and padding, option groups, random streams,
thread counts, CPU memory, subsampling, devices, lazy attributes and the version. Internal:
imports nothing else from the package; no stability promise.
"""

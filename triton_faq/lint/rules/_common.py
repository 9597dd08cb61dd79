"""Helpers the rule modules share."""

from __future__ import annotations

from typing import Iterator

from ..core import FileFacts, Scope


def kernels(f: FileFacts) -> Iterator[Scope]:
    """Each ``@triton.jit`` function of the file once (helpers called from kernels included)."""
    for scope in f.scopes:
        if scope.kind == "kernel":
            yield scope


def hosts(f: FileFacts) -> Iterator[Scope]:
    """The module and every function that is not a kernel."""
    for scope in f.scopes:
        if scope.kind != "kernel":
            yield scope

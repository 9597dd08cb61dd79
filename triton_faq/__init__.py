"""Tooling for the Triton pitfalls handbook: backend choice, page parsing and checks."""

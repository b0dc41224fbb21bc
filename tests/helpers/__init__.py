"""Helpers shared by several test files (a package, so mypy and pytest see one module path)."""

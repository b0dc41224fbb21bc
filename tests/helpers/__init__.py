"""Helpers shared by several test files (the host under test, raw HTTP, official schemas)."""

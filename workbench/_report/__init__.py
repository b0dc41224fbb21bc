"""workbench._report."""

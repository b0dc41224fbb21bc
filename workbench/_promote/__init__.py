"""workbench._promote."""

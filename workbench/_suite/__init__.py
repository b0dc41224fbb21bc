"""workbench._suite."""

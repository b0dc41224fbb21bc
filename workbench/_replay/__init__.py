"""workbench._replay."""

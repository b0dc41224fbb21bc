"""workbench._common."""

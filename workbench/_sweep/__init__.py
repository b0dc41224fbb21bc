"""workbench._sweep."""

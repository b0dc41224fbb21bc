"""workbench._load."""

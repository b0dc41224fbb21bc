"""workbench._grade."""

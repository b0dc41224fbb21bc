"""workbench: an eval workbench for how AI agents recover from tool failures."""

__all__: list[str] = []

"""Framework adapters: agents built with pydantic-ai, the OpenAI Agents SDK or LangGraph, run
against the fixture host (SPEC R25). Each is one thin module whose framework is an optional
extra; :mod:`.common` holds what they share."""
